import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { startSmtpServer, type Inbox } from '../helpers/smtp.ts'

/**
 * A run at LOG_LEVEL=info that sends every kind of secret a URL can carry, in requests that succeed and in
 * requests that fail, and then reads the whole log: no secret's value is in it, the redaction marker is.
 */
const WEB_APP = 'https://app.example.test'
const REDACTED = '[REDACTED]'

let t: TestApp
let inbox: Inbox
const lines: string[] = []
/** Every secret value the run used, with where it travelled. */
const secrets = new Map<string, string>()

before(async () => {
  inbox = await startSmtpServer()
  t = await createTestApp(
    'tiny',
    { LOG_LEVEL: 'info', SMTP_URL: inbox.url, WEB_APP_URL: WEB_APP },
    (app) => {
      // A failure whose message quotes the URL, as errors of HTTP clients and frameworks often do.
      app.get('/test/fails/', { config: { access: 'anyone' } }, async (request) => {
        throw new Error(`upstream refused ${request.url}`)
      })
    },
    { logStream: { write: (line: string) => void lines.push(line) } },
  )
})
after(async () => {
  await t.close()
  await inbox.close()
})

const uses = (what: string, value: string) => {
  assert.ok(value.length >= 8, `${what} is long enough to be found: ${value}`)
  secrets.set(value, what)
  return value
}

/** The code of the link mailed to `email` that opens the web app's `route`. */
async function mailedCode(email: string, route: string): Promise<string> {
  const mail = await inbox.take(email, new RegExp(`/${route}/`))
  const url = /https?:\/\/\S+/.exec(mail.text)![0]
  return decodeURIComponent(new URL(url).pathname.split('/').filter(Boolean)[1])
}

const json = (method: string, url: string, body?: unknown, token?: string) =>
  t.request({
    method: method as 'GET',
    url,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Token ${token}` } : {}) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  })

test('a run that sends every secret a URL can carry leaves none of them in the log', async () => {
  const { key } = await appKeysRepository(t.database.db).create('partner')
  uses('application key', key)
  assert.equal((await t.get(`/api/tags/?AppAuthorization=${key}&page_size=2`)).statusCode, 200)
  assert.equal((await t.get(`/api/?page=1&AppAuthorization=${encodeURIComponent(key)}`)).statusCode, 200)
  assert.equal((await t.get(`/api/tags/?%41ppAuthorization=${uses('mistyped key', 'ffffffff0000aaaa')}`)).statusCode, 401)

  const email = 'lantern@example.org'
  const registered = await json('POST', '/auth/register/', { email, username: 'lantern', password: 'violet-harbour-77' })
  assert.equal(registered.statusCode, 201, registered.body)
  const token = uses('sign-in token', registered.json().auth_token)

  // The confirmation code, as the web app's link and as the service's own GET.
  const confirmation = uses('e-mail confirmation code', await mailedCode(email, 'confirm-email'))
  assert.equal((await t.get(`/confirm-email/${encodeURIComponent(confirmation)}/${encodeURIComponent(email)}`)).statusCode, 404)
  assert.equal((await t.get(`/auth/confirm_email/?code=${encodeURIComponent(confirmation)}&email=${email}`)).statusCode, 200)
  assert.equal(
    (await t.get(`/auth/confirm_email/?email=${email}&code=${uses('wrong confirmation code', 'not-the-code-12345')}`)).statusCode,
    400,
  )

  // The one-time sign-in code, in the web app's link path.
  assert.equal((await json('POST', '/auth/onetime_signin/', { email })).statusCode, 200)
  const signInCode = uses('one-time sign-in code', await mailedCode(email, 'authcode'))
  assert.equal((await t.get(`/authcode/${encodeURIComponent(signInCode)}/${encodeURIComponent(email)}/%2F`)).statusCode, 404)

  // The password-reset code, in the link path and as a query parameter; Django-style uid/token reset links.
  assert.equal((await json('POST', '/auth/password-reset/', { email })).statusCode, 200)
  const resetCode = uses('password-reset code', await mailedCode(email, 'password-reset'))
  assert.equal((await t.get(`/password-reset/${encodeURIComponent(resetCode)}/${encodeURIComponent(email)}`)).statusCode, 404)
  assert.equal((await t.get(`/password/reset/confirm/MTI/${uses('reset token', 'c0ffee-5e7b1c2d3e4f')}/`)).statusCode, 404)

  // A sign-in token handed over in a path, and sign-in codes and states of a provider's callback.
  assert.equal((await t.get(`/authtoken/${token}/x`)).statusCode, 404)
  const oauthCode = uses('provider code', 'oauth-code-7f3a9b21')
  const oauthState = uses('provider state', 'oauth-state-51c2e8d4')
  assert.equal((await t.get(`/auth/social1/?code=${oauthCode}&state=${oauthState}`)).statusCode, 400)

  // A push registration id (a device token) in the path.
  const registration = uses('push registration id', 'fcm-registration-0123456789abcdef')
  assert.equal(
    (await json('POST', '/api-push/device/gcm/', { name: 'phone', registration_id: registration, active: true }, token)).statusCode,
    201,
  )
  assert.equal((await json('GET', `/api-push/device/gcm/${registration}`, undefined, token)).statusCode, 200)
  assert.equal((await json('DELETE', `/api-push/device/gcm/${registration}`, undefined, token)).statusCode, 204)

  // Requests that fail with a logged error, their messages and stacks quoting the URL.
  const otp = uses('one-time password', '493017-otp-value')
  assert.equal((await t.get(`/test/fails/?AppAuthorization=${key}&otp=${otp}`)).statusCode, 500)
  assert.equal((await t.get(`/test/fails/?token=${token}&code=${signInCode}`)).statusCode, 500)

  const log = lines.join('')
  assert.ok(lines.length >= 20, `one line per request at least: ${lines.length}`)
  const errorLines = lines.filter((line) => JSON.parse(line).level >= 50)
  assert.equal(errorLines.length, 2, 'both failures are logged as errors')
  for (const line of errorLines) {
    const entry = JSON.parse(line)
    assert.ok(entry.err.message.includes(REDACTED) && entry.err.stack.includes(REDACTED), line)
  }
  for (const [value, what] of secrets) {
    for (const form of new Set([value, encodeURIComponent(value)])) {
      assert.ok(!log.includes(form), `the ${what} is in the log:\n${lines.find((line) => line.includes(form))}`)
    }
  }
  const requestLines = lines.map((line) => JSON.parse(line)).filter((entry) => entry.url !== undefined)
  for (const path of [
    '/api/tags/?AppAuthorization=',
    '/auth/confirm_email/?code=',
    '/authcode/',
    '/password-reset/',
    '/api-push/device/gcm/',
    '/auth/social1/?code=',
  ]) {
    const entry = requestLines.find((candidate) => candidate.url.startsWith(path) && candidate.url.length > path.length)
    assert.ok(entry, `a request line for ${path}`)
    assert.ok(entry.url.includes(REDACTED), entry.url)
    assert.ok(entry.msg.includes(REDACTED), entry.msg)
  }
  assert.ok(log.includes('page_size=2') && log.includes(`email=${email}`), 'what is not secret stays readable')
})
