import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { parseMail, startSmtpServer, type Inbox, type ReceivedMail } from '../helpers/smtp.ts'

const WEB_APP = 'https://app.example.test'
const RESET_SENT = 'If an account has this e-mail address, we have sent it a link to choose a new password.'
const LINK_SENT = 'If an account has this e-mail address, we have sent it a sign-in link.'

let t: TestApp
let inbox: Inbox
let serial = 0

before(async () => {
  inbox = await startSmtpServer()
  t = await createTestApp('tiny', { SMTP_URL: inbox.url, WEB_APP_URL: WEB_APP })
})
after(async () => {
  await t.close()
  await inbox.close()
})

const fresh = () => `mailer${process.pid}x${++serial}`

async function register(app: TestApp = t, overrides: Record<string, unknown> = {}) {
  const username = fresh()
  const body = { username, email: `${username}@example.org`, password: 'lantern-orchard-42', ...overrides }
  const response = await app.send('POST', '/auth/register/', body)
  assert.equal(response.statusCode, 201, response.body)
  return { ...body, id: response.json().id as number, token: response.json().auth_token as string }
}

/** The code and address in the mail's link to the web app's `route`. */
function linkOf(mail: ReceivedMail, route: string) {
  const url = /https?:\/\/\S+/.exec(mail.text)?.[0]
  assert.ok(url, `a link in ${mail.text}`)
  const [first, code, email, redirect] = new URL(url).pathname.split('/').filter(Boolean).map(decodeURIComponent)
  assert.equal(first, route, url)
  return { url, code, email, redirect }
}

const takeLink = async (email: string, route: string) => linkOf(await inbox.take(email, new RegExp(`/${route}/`)), route)

const me = async (token: string) => t.json('/auth/me/', { authorization: `Token ${token}` })

async function userRow(id: number) {
  return t.database.db
    .selectFrom('users')
    .select(['is_email_verified', 'password_hash', 'is_active'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
}

async function expire(userId: number, purpose: string) {
  await t.database.db
    .updateTable('one_time_codes')
    .set({ expires_at: sql`now() - interval '1 minute'` })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .execute()
}

/** No mail to `email` has arrived once a later mail to someone else has. */
async function assertNoMailTo(email: string) {
  const witness = await register()
  await inbox.take(witness.email, /confirm-email/)
  await new Promise((resolve) => setTimeout(resolve, 100))
  assert.deepEqual(
    inbox.waiting(email).map((mail) => mail.subject),
    [],
  )
}

const codeError = (message: string) => ({ code: [message] })
const INVALID = codeError('Invalid code.')
const USED = codeError('This code has already been used.')
const EXPIRED = codeError('This code has expired.')

describe('confirming an e-mail address', () => {
  test('register mails a link whose code confirms the address, once', async () => {
    const user = await register()
    const mail = await inbox.take(user.email, /confirm-email/)
    assert.match(mail.subject, /Civic Survey/)
    assert.match(mail.from, /Civic Survey/)
    const link = linkOf(mail, 'confirm-email')
    assert.ok(link.url.startsWith(`${WEB_APP}/confirm-email/`), link.url)
    assert.equal(link.email, user.email)
    assert.match(mail.text, /3 days/)

    const before = await me(user.token)
    assert.equal(before.is_email_verified, false)
    const confirmed = await t.send('POST', '/auth/confirm_email/', { code: link.code, email: link.email })
    assert.equal(confirmed.statusCode, 200, confirmed.body)
    assert.equal(typeof confirmed.json().detail, 'string')
    const afterwards = await me(user.token)
    assert.equal(afterwards.is_email_verified, true)
    assert.equal(afterwards.verification_count, before.verification_count + 1)

    const again = await t.send('POST', '/auth/confirm_email/', { code: link.code, email: link.email })
    assert.equal(again.statusCode, 400)
    assert.deepEqual(again.json(), USED)
  })

  test('request_confirm_email sends a new link that replaces the earlier one; GET works too', async () => {
    const user = await register(t, { email: `plus+${fresh()}@example.org` })
    const first = await takeLink(user.email, 'confirm-email')
    const requested = await t.send('POST', '/auth/request_confirm_email/', undefined, user.token)
    assert.equal(requested.statusCode, 200, requested.body)
    assert.match(requested.json().detail, new RegExp(user.email.replace('+', '\\+')))
    const second = await takeLink(user.email, 'confirm-email')
    assert.notEqual(second.code, first.code)
    assert.deepEqual((await t.send('POST', '/auth/confirm_email/', { code: first.code, email: user.email })).json(), USED)

    // The address goes unencoded, as a hand-made link would carry it: its "+" arrives as a space.
    const viaGet = await t.get(`/auth/confirm_email/?code=${second.code}&email=${user.email}`)
    assert.equal(viaGet.statusCode, 200, viaGet.body)
    assert.equal((await me(user.token)).is_email_verified, true)

    const already = await t.send('POST', '/auth/request_confirm_email/', {}, user.token)
    assert.equal(already.statusCode, 400)
    assert.deepEqual(already.json(), { email: ['Your e-mail address is already confirmed.'] })
  })

  test('request_confirm_email needs a signed-in caller with an address', async () => {
    const anonymous = await t.send('POST', '/auth/request_confirm_email/', {})
    assert.equal(anonymous.statusCode, 403)
    const user = await register()
    await t.database.db.updateTable('users').set({ email: null }).where('id', '=', user.id).execute()
    const none = await t.send('POST', '/auth/request_confirm_email/', {}, user.token)
    assert.equal(none.statusCode, 400)
    assert.deepEqual(Object.keys(none.json()), ['email'])
  })

  test('wrong, forged, expired and misdirected codes are refused and change nothing', async () => {
    const user = await register()
    const other = await register()
    const { code } = await takeLink(user.email, 'confirm-email')
    const forged = code.slice(0, -2) + (code.endsWith('AA') ? 'BB' : 'AA')
    const attempts: [Record<string, string>, object][] = [
      [{ code: 'not-a-code', email: user.email }, INVALID],
      [{ code: 'abc.def', email: user.email }, INVALID],
      [{ code: forged, email: user.email }, INVALID],
      [{ code, email: other.email }, INVALID],
    ]
    for (const [body, expected] of attempts) {
      const response = await t.send('POST', '/auth/confirm_email/', body)
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.deepEqual(response.json(), expected)
    }
    // A code for another purpose: the signature names the purpose.
    assert.deepEqual((await t.send('POST', '/auth/onetime_signin/', { code, email: user.email })).json(), INVALID)
    assert.deepEqual(
      (await t.send('POST', '/auth/password-reset-confirm/', { code, email: user.email, new_password: 'violet-harbour-77' })).json(),
      INVALID,
    )

    await expire(user.id, 'confirm_email')
    assert.deepEqual((await t.send('POST', '/auth/confirm_email/', { code, email: user.email })).json(), EXPIRED)
    assert.equal((await userRow(user.id)).is_email_verified, false)
    assert.equal((await userRow(other.id)).is_email_verified, false)
  })

  test('a new address on the profile gets its own link; the old address link stops working', async () => {
    const user = await register()
    const old = await takeLink(user.email, 'confirm-email')
    const newEmail = `${fresh()}@example.net`
    const patched = await t.send('PATCH', '/auth/me/', { email: newEmail }, user.token)
    assert.equal(patched.statusCode, 200, patched.body)
    const fresher = await takeLink(newEmail, 'confirm-email')
    assert.equal((await t.send('POST', '/auth/confirm_email/', { code: old.code, email: user.email })).statusCode, 400)
    assert.equal((await t.send('POST', '/auth/confirm_email/', { code: fresher.code, email: user.email })).statusCode, 400)
    assert.equal((await t.send('POST', '/auth/confirm_email/', { code: fresher.code, email: newEmail.toUpperCase() })).statusCode, 200)
    assert.equal((await me(user.token)).is_email_verified, true)
  })
})

describe('password reset', () => {
  test('the link sets a new password, ends every sign-in and confirms the address', async () => {
    const user = await register()
    const other = (await t.send('POST', '/auth/login/', { username: user.username, password: user.password })).json().auth_token
    const asked = await t.send('POST', '/auth/password-reset/', { email: user.email.toUpperCase() })
    assert.equal(asked.statusCode, 200)
    assert.deepEqual(asked.json(), { detail: RESET_SENT })
    const mail = await inbox.take(user.email, /password-reset/)
    assert.match(mail.text, /1 hour/)
    const link = linkOf(mail, 'password-reset')
    assert.ok(link.url.startsWith(`${WEB_APP}/password-reset/`), link.url)

    const confirm = (new_password: string, code = link.code) =>
      t.send('POST', '/auth/password-reset-confirm/', { code, email: link.email, new_password })
    const common = await confirm('password')
    assert.equal(common.statusCode, 400)
    assert.ok(common.json().new_password.includes('This password is too common.'), common.body)
    const similar = await confirm(`${user.username}!`)
    assert.deepEqual(similar.json(), { new_password: ['The password is too similar to the username.'] })
    assert.equal((await me(user.token)).id, user.id, 'refused attempts end no sign-in')

    const done = await confirm('violet-harbour-77')
    assert.equal(done.statusCode, 200, done.body)
    assert.equal(typeof done.json().detail, 'string')
    for (const token of [user.token, other]) assert.equal((await t.get('/auth/me/', { authorization: `Token ${token}` })).statusCode, 401)
    const login = await t.send('POST', '/auth/login/', { username: user.email, password: 'violet-harbour-77' })
    assert.equal(login.statusCode, 200, login.body)
    assert.equal(login.json().is_email_verified, true)
    assert.equal((await t.send('POST', '/auth/login/', { username: user.email, password: user.password })).statusCode, 400)
    assert.deepEqual((await confirm('another-garden-88')).json(), USED)
  })

  test('an unknown or deleted address gets the same answer and no mail; a deactivated account can come back', async () => {
    const unknown = `nobody-${fresh()}@example.org`
    const deactivated = await register()
    const deleted = await register()
    await t.send('POST', '/auth/password-reset/', { email: deleted.email })
    const early = await takeLink(deleted.email, 'password-reset')
    assert.equal((await t.send('POST', '/auth/deactivate-account/', { password: deactivated.password }, deactivated.token)).statusCode, 204)
    assert.equal((await t.send('POST', '/auth/delete-account/', { password: deleted.password }, deleted.token)).statusCode, 204)
    for (const email of [unknown, deactivated.email, deleted.email]) {
      const response = await t.send('POST', '/auth/password-reset/', { email })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), { detail: RESET_SENT })
    }
    await assertNoMailTo(unknown)
    assert.deepEqual(
      inbox.waiting(deleted.email).filter((mail) => /password-reset/.test(mail.text)),
      [],
      'a deleted account gets nothing',
    )

    const late = await t.send('POST', '/auth/password-reset-confirm/', {
      code: early.code,
      email: deleted.email,
      new_password: 'violet-harbour-77',
    })
    assert.deepEqual(late.json(), USED, 'deleting an account spends its pending codes')
    assert.equal((await userRow(deleted.id)).password_hash, null)

    const link = await takeLink(deactivated.email, 'password-reset')
    const reset = await t.send('POST', '/auth/password-reset-confirm/', {
      code: link.code,
      email: deactivated.email,
      new_password: 'violet-harbour-77',
    })
    assert.equal(reset.statusCode, 200, reset.body)
    assert.equal((await userRow(deactivated.id)).is_active, true, 'a reset brings a deactivated account back')
  })

  test('an expired or wrong code changes nothing', async () => {
    const user = await register()
    await t.send('POST', '/auth/password-reset/', { email: user.email })
    const { code } = await takeLink(user.email, 'password-reset')
    const before = await userRow(user.id)
    const wrong = await t.send('POST', '/auth/password-reset-confirm/', {
      code: `${code}x`,
      email: user.email,
      new_password: 'violet-harbour-77',
    })
    assert.deepEqual(wrong.json(), INVALID)
    await expire(user.id, 'password_reset')
    const expired = await t.send('POST', '/auth/password-reset-confirm/', { code, email: user.email, new_password: 'violet-harbour-77' })
    assert.equal(expired.statusCode, 400)
    assert.deepEqual(expired.json(), EXPIRED)
    assert.deepEqual(await userRow(user.id), before)
    assert.equal((await t.get('/auth/me/', { authorization: `Token ${user.token}` })).statusCode, 200)
  })
})

describe('one-time sign-in links', () => {
  test('the link signs in once; the token is access_token and works as a Token', async () => {
    const user = await register()
    const asked = await t.send('POST', '/auth/onetime_signin/', { email: user.email, redirect: '/questions/12/?tab=results' })
    assert.deepEqual(asked.json(), { detail: LINK_SENT })
    const mail = await inbox.take(user.email, /authcode/)
    assert.match(mail.text, /15 minutes/)
    const link = linkOf(mail, 'authcode')
    assert.ok(link.url.startsWith(`${WEB_APP}/authcode/`), link.url)
    assert.ok(link.url.endsWith(`/${encodeURIComponent('/questions/12/?tab=results')}`), link.url)
    assert.equal(link.redirect, '/questions/12/?tab=results')

    const signedIn = await t.send('POST', '/auth/onetime_signin/', { code: link.code, email: link.email })
    assert.equal(signedIn.statusCode, 200, signedIn.body)
    const body = signedIn.json()
    assert.match(body.access_token, /^[0-9a-f]{40}$/)
    assert.equal(body.auth_token, undefined)
    assert.equal(body.id, user.id)
    const mine = await me(body.access_token)
    assert.equal(mine.id, user.id)
    assert.equal(mine.is_email_verified, true)
    assert.deepEqual((await t.send('POST', '/auth/onetime_signin/', { code: link.code, email: link.email })).json(), USED)
  })

  test('without a redirect the link opens the web app at "/"; unknown addresses get the same answer and no mail', async () => {
    const user = await register()
    await t.send('POST', '/auth/onetime_signin/', { email: user.email })
    const link = await takeLink(user.email, 'authcode')
    assert.ok(link.url.endsWith('/%2F'), link.url)
    const unknown = `nobody-${fresh()}@example.org`
    const answer = await t.send('POST', '/auth/onetime_signin/', { email: unknown })
    assert.equal(answer.statusCode, 200)
    assert.deepEqual(answer.json(), { detail: LINK_SENT })
    await assertNoMailTo(unknown)
    for (const redirect of ['//elsewhere.example', 'https://elsewhere.example/', '/\\elsewhere.example']) {
      const refused = await t.send('POST', '/auth/onetime_signin/', { email: user.email, redirect })
      assert.equal(refused.statusCode, 400, redirect)
      assert.deepEqual(Object.keys(refused.json()), ['redirect'])
    }
  })

  test('an expired code does not sign in; a deactivated account signs in by link and is back', async () => {
    const user = await register()
    await t.send('POST', '/auth/onetime_signin/', { email: user.email })
    const first = await takeLink(user.email, 'authcode')
    await expire(user.id, 'onetime_signin')
    assert.deepEqual((await t.send('POST', '/auth/onetime_signin/', { code: first.code, email: user.email })).json(), EXPIRED)
    await t.send('POST', '/auth/onetime_signin/', { email: user.email })
    const second = await takeLink(user.email, 'authcode')
    const tokens = await t.database.db.selectFrom('auth_tokens').select('id').where('user_id', '=', user.id).execute()
    assert.equal(tokens.length, 1, 'the expired code issued nothing: only the token of the registration')
    await t.database.db.updateTable('users').set({ is_active: false }).where('id', '=', user.id).execute()
    const back = await t.send('POST', '/auth/onetime_signin/', { code: second.code, email: user.email })
    assert.equal(back.statusCode, 200, back.body)
    assert.equal((await t.get('/auth/me/', { authorization: `Token ${back.json().access_token}` })).json().id, user.id)
  })
})

test('bad input answers 400 naming the field, never 500', async () => {
  const huge = 'x'.repeat(100_000)
  const cases: [string, unknown, string[]][] = [
    ['/auth/confirm_email/', {}, ['code', 'email']],
    ['/auth/confirm_email/', { code: huge, email: 'a@example.org' }, ['code']],
    ['/auth/confirm_email/', { code: { $ne: 1 }, email: ['a@example.org', 'b@example.org'] }, ['code', 'email']],
    ['/auth/password-reset/', {}, ['email']],
    ['/auth/password-reset/', { email: 'not an address' }, ['email']],
    ['/auth/password-reset/', { email: `${huge}@example.org` }, ['email']],
    ['/auth/password-reset-confirm/', { code: 'a.b', email: 'a@example.org' }, ['new_password']],
    ['/auth/password-reset-confirm/', { code: 'a.b', email: 'a@example.org', new_password: huge }, ['new_password']],
    ['/auth/password-reset-confirm/', { code: 'a.b', email: 'a@example.org', new_password: '123' }, ['new_password']],
    ['/auth/onetime_signin/', { email: 12 }, ['email']],
    ['/auth/onetime_signin/', { email: 'a@example.org', redirect: huge }, ['redirect']],
    ['/auth/onetime_signin/', { email: 'a@example.org', code: '' }, ['code']],
  ]
  for (const [url, body, fields] of cases) {
    const response = await t.send('POST', url, body)
    assert.equal(response.statusCode, 400, `${url} ${JSON.stringify(body).slice(0, 80)}: ${response.body.slice(0, 200)}`)
    assert.deepEqual(Object.keys(response.json()).sort(), fields, url)
  }
  const query = await t.get('/auth/confirm_email/')
  assert.equal(query.statusCode, 400)
  assert.deepEqual(Object.keys(query.json()).sort(), ['code', 'email'])
  const form = await t.request({
    method: 'POST',
    url: '/auth/password-reset/',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'email=nobody%40example.org',
  })
  assert.deepEqual(form.json(), { detail: RESET_SENT })
})

test('when the mail server is down, register still works, request_confirm_email answers 503 and password-reset keeps its answer', async () => {
  const closed = net.createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as net.AddressInfo).port
  await new Promise((resolve) => closed.close(resolve))
  const down = await createTestApp('tiny', { SMTP_URL: `smtp://127.0.0.1:${port}`, WEB_APP_URL: WEB_APP })
  try {
    const user = await register(down)
    const requested = await down.send('POST', '/auth/request_confirm_email/', {}, user.token)
    assert.equal(requested.statusCode, 503, requested.body)
    assert.equal(typeof requested.json().detail, 'string')
    assert.deepEqual((await down.send('POST', '/auth/password-reset/', { email: user.email })).json(), { detail: RESET_SENT })
  } finally {
    await down.close()
  }
})

test("without SMTP_URL mail is written as .eml files under DATA_DIR/mail, links on the request's address", async () => {
  const local = await createTestApp('tiny')
  try {
    const user = await register(local)
    assert.equal((await local.send('POST', '/auth/password-reset/', { email: user.email })).statusCode, 200)
    const folder = path.join(local.app.config.dataDir, 'mail')
    let mail: ReturnType<typeof parseMail> | undefined
    for (let i = 0; i < 100 && !mail; i++) {
      const files = fs.existsSync(folder) ? fs.readdirSync(folder).filter((name) => name.endsWith('.eml')) : []
      mail = files
        .map((name) => parseMail(fs.readFileSync(path.join(folder, name), 'utf8')))
        .find((parsed) => parsed.text.includes('/password-reset/'))
      if (!mail) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.ok(mail, 'a password reset mail on disk')
    const link = linkOf({ ...mail, to: [user.email] }, 'password-reset')
    assert.ok(link.url.startsWith('http://localhost'), link.url)
    const done = await local.send('POST', '/auth/password-reset-confirm/', {
      code: link.code,
      email: link.email,
      new_password: 'violet-harbour-77',
    })
    assert.equal(done.statusCode, 200, done.body)
  } finally {
    await local.close()
  }
})
