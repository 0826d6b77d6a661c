import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { hashSecret } from '../../src/core/secrets.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { startTestProvider, type TestAccount, type TestProvider } from '../helpers/oidc.ts'

const PUBLIC_URL = 'http://civic.test'
const CALLBACK = `${PUBLIC_URL}/auth/social1/`
const NATIVE_CALLBACK = 'http://app.test/native-callback'
const CLIENT = {
  client_id: 'civic-survey',
  client_secret: 'civic-survey-secret-civic-survey-secret',
  redirect_uris: [CALLBACK, NATIVE_CALLBACK],
}

let t: TestApp
let provider: TestProvider
let serial = 0

before(async () => {
  provider = await startTestProvider([CLIENT])
  t = await createTestApp('tiny', {
    PUBLIC_URL,
    WEB_APP_URL: 'http://web.test',
    CORS_ORIGINS: 'http://other.test',
    SOCIAL1_ISSUER: provider.issuer,
    SOCIAL1_CLIENT_ID: CLIENT.client_id,
    SOCIAL1_CLIENT_SECRET: CLIENT.client_secret,
    SOCIAL1_NAME: 'facebook',
    // Nothing listens on port 1: a provider that cannot be reached.
    SOCIAL2_ISSUER: 'http://127.0.0.1:1',
    SOCIAL2_CLIENT_ID: 'unreachable',
    SOCIAL2_NAME: 'down',
  })
})
after(async () => {
  await t.close()
  await provider.close()
})

/** A new person at the provider, with every profile claim unless overridden. */
function person(overrides: Partial<TestAccount> = {}): TestAccount {
  const sub = `sub-${process.pid}-${++serial}`
  const account = {
    sub,
    email: `${sub}@example.org`,
    email_verified: true,
    given_name: 'Ada',
    family_name: 'Lovelace',
    preferred_username: `ada${process.pid}x${serial}`,
    ...overrides,
  }
  provider.accounts.set(sub, account)
  return account
}

const me = async (token: string) => t.json(`/auth/me/`, { authorization: `Token ${token}` })
const local = (url: URL) => url.pathname + url.search

/** GET /auth/social1/ and the browser's round trip through the provider: answers the callback URL. */
async function throughProvider(sub: string, query = ''): Promise<URL> {
  const start = await t.get(`/auth/social1/${query}`)
  assert.equal(start.statusCode, 302, start.body)
  const back = await provider.authorize(start.headers.location as string, sub)
  assert.equal(back.origin + back.pathname, CALLBACK)
  return back
}

async function countUsers() {
  const row = await t.database.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

test('the code flow: 302 to the provider with state, nonce and PKCE, then the callback signs in once', async () => {
  const account = person()
  const start = await t.get('/auth/social1/')
  assert.equal(start.statusCode, 302, start.body)
  const authorization = new URL(start.headers.location as string)
  assert.equal(authorization.origin, provider.issuer)
  const params = Object.fromEntries(authorization.searchParams)
  assert.equal(params.client_id, CLIENT.client_id)
  assert.equal(params.redirect_uri, CALLBACK)
  assert.equal(params.response_type, 'code')
  assert.equal(params.code_challenge_method, 'S256')
  assert.ok(params.state && params.nonce && params.code_challenge)
  assert.match(params.scope, /openid/)

  const back = await provider.authorize(authorization, account.sub)
  assert.ok(back.searchParams.get('code'))
  const callback = await t.get(local(back))
  assert.equal(callback.statusCode, 200, callback.body)
  const signedIn = callback.json()
  assert.deepEqual(Object.keys(signedIn).sort(), ['auth_token', 'created', 'id'])
  assert.equal(signedIn.created, true)

  const profile = await me(signedIn.auth_token)
  assert.equal(profile.id, signedIn.id)
  assert.equal(profile.is_social1_verified, true)
  assert.equal(profile.is_email_verified, true)
  assert.equal(profile.username, account.preferred_username)
  assert.equal(profile.first_name, 'Ada')
  assert.equal(profile.last_name, 'Lovelace')
  assert.equal(profile.email, account.email)
  assert.equal(profile.has_password, false)
  assert.equal(profile.verification_count, 2)

  const replay = await t.get(local(back))
  assert.equal(replay.statusCode, 400)
  assert.deepEqual(Object.keys(replay.json()), ['state'])
  const left = await t.database.db.selectFrom('social_login_states').select('state_hash').where('state_hash', '=', params.state).execute()
  assert.equal(left.length, 0, 'the state is stored hashed, never as sent')
})

test('with next on the web app, the callback sends the browser there with the token in the fragment', async () => {
  const account = person()
  const back = await throughProvider(account.sub, `?next=${encodeURIComponent('http://web.test/welcome?tab=1')}`)
  const callback = await t.get(local(back))
  assert.equal(callback.statusCode, 302, callback.body)
  const landing = new URL(callback.headers.location as string)
  assert.equal(landing.origin + landing.pathname + landing.search, 'http://web.test/welcome?tab=1')
  const token = new URLSearchParams(landing.hash.slice(1)).get('auth_token')!
  assert.equal((await me(token)).is_social1_verified, true)

  for (const next of ['/from-a-path', 'http://other.test/cors-origin']) {
    assert.equal((await t.get(`/auth/social1/?next=${encodeURIComponent(next)}`)).statusCode, 302, next)
  }
  for (const next of ['http://evil.test/steal', '//evil.test/steal', 'javascript:alert(1)']) {
    const refused = await t.get(`/auth/social1/?next=${encodeURIComponent(next)}`)
    assert.equal(refused.statusCode, 400, next)
    assert.deepEqual(Object.keys(refused.json()), ['next'])
  }
})

test('a sign-in the user cancels at the provider is 400, or an #error on the web app when next was given', async () => {
  const start = await t.get('/auth/social1/')
  const state = new URL(start.headers.location as string).searchParams.get('state')!
  const cancelled = await t.get(`/auth/social1/?error=access_denied&state=${state}`)
  assert.equal(cancelled.statusCode, 400)
  assert.deepEqual(Object.keys(cancelled.json()), ['non_field_errors'])

  const withNext = await t.get(`/auth/social1/?next=${encodeURIComponent('http://web.test/')}`)
  const nextState = new URL(withNext.headers.location as string).searchParams.get('state')!
  const back = await t.get(`/auth/social1/?error=access_denied&state=${nextState}`)
  assert.equal(back.statusCode, 302)
  assert.equal(back.headers.location, 'http://web.test/#error=access_denied')
})

test('a callback without state or code, with an unknown or expired state, a forged code or another issuer is 400', async () => {
  assert.deepEqual((await t.get('/auth/social1/?code=abc')).json(), { state: ['This field is required.'] })
  assert.deepEqual(Object.keys((await t.get('/auth/social1/?code=abc&state=made-up')).json()), ['state'])
  const start = await t.get('/auth/social1/')
  const state = new URL(start.headers.location as string).searchParams.get('state')!
  assert.deepEqual((await t.get(`/auth/social1/?state=${state}`)).json(), { code: ['This field is required.'] })
  const iss = encodeURIComponent(provider.issuer)
  const forged = await t.get(`/auth/social1/?code=forged&state=${state}&iss=${iss}`)
  assert.equal(forged.statusCode, 400, 'a code the provider never issued')
  assert.deepEqual(Object.keys(forged.json()), ['non_field_errors'])
  const second = new URL((await t.get('/auth/social1/')).headers.location as string).searchParams.get('state')!
  const elsewhere = await t.get(`/auth/social1/?code=abc&state=${second}&iss=${encodeURIComponent('http://mix-up.test')}`)
  assert.deepEqual(Object.keys(elsewhere.json()), ['iss'], 'an answer from another issuer')

  const account = person()
  const late = await throughProvider(account.sub)
  await t.database.db
    .updateTable('social_login_states')
    .set({ expires_at: sql`now() - interval '1 second'` })
    .where('state_hash', '=', hashSecret(late.searchParams.get('state')!))
    .execute()
  assert.deepEqual(Object.keys((await t.get(local(late))).json()), ['state'], 'after ten minutes the sign-in is gone')
})

test('an access token signs in on social_auth, auth-yeti (JSON and form) and both token endpoints, always as the same user', async () => {
  const account = person()
  const accessToken = await provider.accessTokenFor(account.sub)

  const first = await t.send('POST', '/auth/social_auth/', { provider: 'facebook', access_token: accessToken })
  assert.equal(first.statusCode, 200, first.body)
  const user = first.json()
  assert.match(user.auth_token, /^[0-9a-f]{40}$/)
  assert.equal(user.created, true)
  assert.equal(user.username, account.preferred_username)
  assert.equal(user.is_social1_verified, true)
  assert.equal(user.has_password, false)

  const again = await t.send('POST', '/auth/social_auth/', { provider: 'social1', access_token: accessToken })
  assert.equal(again.json().id, user.id)
  assert.equal(again.json().created, false)

  const yeti = await t.send('POST', '/auth-yeti/', { provider: 'Facebook', access_token: accessToken })
  assert.equal(yeti.statusCode, 200, yeti.body)
  assert.deepEqual(Object.keys(yeti.json()).sort(), ['auth_token', 'id'])
  assert.equal(yeti.json().id, user.id)
  const form = await t.request({
    method: 'POST',
    url: '/auth-yeti/',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ provider: 'facebook', access_token: accessToken }).toString(),
  })
  assert.equal(form.statusCode, 200, form.body)
  assert.ok(form.json().auth_token && form.json().id === user.id)

  const tokenOnly = await t.send('POST', '/auth/token-only-social-auth/', { provider: 'facebook', access_token: accessToken })
  assert.deepEqual(Object.keys(tokenOnly.json()), ['auth_token'])
  assert.equal((await me(tokenOnly.json().auth_token)).id, user.id)

  const session = await t.send('POST', '/auth/session-social-auth/', { provider: 'facebook', access_token: accessToken })
  assert.equal(session.statusCode, 200, session.body)
  assert.equal(session.json().id, user.id)
  assert.equal(session.json().username, account.preferred_username)
  assert.equal((await me(session.json().auth_token)).id, user.id)

  const links = await t.database.db.selectFrom('social_accounts').select(['provider', 'subject']).where('user_id', '=', user.id).execute()
  assert.deepEqual(links, [{ provider: 'social1', subject: account.sub }])
})

test('a code a mobile app obtained itself signs in on both token endpoints, once', async () => {
  const account = person()
  const { code, codeVerifier } = await provider.codeFor(account.sub, CLIENT.client_id, NATIVE_CALLBACK)
  const body = { provider: 'facebook', code, redirect_uri: NATIVE_CALLBACK, code_verifier: codeVerifier }
  const tokenOnly = await t.send('POST', '/auth/token-only-social-auth/', body)
  assert.equal(tokenOnly.statusCode, 200, tokenOnly.body)
  assert.deepEqual(Object.keys(tokenOnly.json()), ['auth_token'])
  assert.equal((await me(tokenOnly.json().auth_token)).username, account.preferred_username)
  const replay = await t.send('POST', '/auth/token-only-social-auth/', body)
  assert.equal(replay.statusCode, 400)
  assert.deepEqual(Object.keys(replay.json()), ['code'])

  const second = await provider.codeFor(account.sub, CLIENT.client_id, NATIVE_CALLBACK)
  const session = await t.send('POST', '/auth/session-social-auth/', {
    provider: 'social1',
    code: second.code,
    redirect_uri: NATIVE_CALLBACK,
    code_verifier: second.codeVerifier,
  })
  assert.equal(session.statusCode, 200, session.body)
  assert.equal(session.json().username, account.preferred_username)
})

test('bad input is a 400 naming the field, an unreachable provider 502, and neither changes anything', async () => {
  const before = await countUsers()
  const garbage = await t.send('POST', '/auth/social_auth/', { provider: 'facebook', access_token: 'not-a-token' })
  assert.equal(garbage.statusCode, 400)
  assert.deepEqual(garbage.json(), { access_token: ['Invalid or expired access token.'] })
  assert.equal((await t.send('POST', '/auth-yeti/', { provider: 'facebook', access_token: 'not-a-token' })).statusCode, 400)

  const unknown = await t.send('POST', '/auth/social_auth/', { provider: 'nope', access_token: 'x' })
  assert.equal(unknown.statusCode, 400)
  assert.deepEqual(unknown.json(), { provider: ['Unknown or unconfigured provider "nope".'] })
  const unconfigured = await t.get('/auth/social3/')
  assert.deepEqual(unconfigured.json(), { provider: ['Unknown or unconfigured provider "social3".'] })

  assert.deepEqual(Object.keys((await t.send('POST', '/auth-yeti/', {})).json()).sort(), ['access_token', 'provider'])
  const neither = await t.send('POST', '/auth/token-only-social-auth/', { provider: 'facebook' })
  assert.deepEqual(Object.keys(neither.json()), ['access_token'])
  const noRedirect = await t.send('POST', '/auth/session-social-auth/', { provider: 'facebook', code: 'abc' })
  assert.deepEqual(Object.keys(noRedirect.json()), ['redirect_uri'])
  const badRedirect = await t.send('POST', '/auth/session-social-auth/', { provider: 'facebook', code: 'abc', redirect_uri: 'not a url' })
  assert.deepEqual(badRedirect.json(), { redirect_uri: ['Enter a valid URL.'] })
  const badCode = await t.send('POST', '/auth/token-only-social-auth/', {
    provider: 'facebook',
    code: 'abc',
    redirect_uri: NATIVE_CALLBACK,
  })
  assert.deepEqual(Object.keys(badCode.json()), ['code'])

  for (const response of [
    await t.send('POST', '/auth/social_auth/', { provider: 'down', access_token: 'x' }),
    await t.get('/auth/social2/'),
  ]) {
    assert.equal(response.statusCode, 502, response.body)
    assert.match(response.json().detail, /"down" could not be reached/)
  }
  assert.equal(await countUsers(), before)
})

test('a verified e-mail links to the account that has it; an unverified one makes a new account without it', async () => {
  const existing = await insertUser(t.database.db, { email: `linked-${process.pid}@example.org` })
  const verified = person({ email: existing.email!.toUpperCase(), email_verified: true })
  const linked = await t.send('POST', '/auth/social_auth/', {
    provider: 'facebook',
    access_token: await provider.accessTokenFor(verified.sub),
  })
  assert.equal(linked.statusCode, 200, linked.body)
  assert.equal(linked.json().id, existing.id)
  assert.equal(linked.json().created, false)
  assert.equal(linked.json().username, existing.username, 'the account keeps its name')
  assert.equal(linked.json().is_email_verified, true)
  assert.equal(linked.json().is_social1_verified, true)

  const unverified = person({ email: existing.email!, email_verified: false, preferred_username: existing.username })
  const separate = await t.send('POST', '/auth/social_auth/', {
    provider: 'facebook',
    access_token: await provider.accessTokenFor(unverified.sub),
  })
  assert.equal(separate.statusCode, 200, separate.body)
  assert.notEqual(separate.json().id, existing.id)
  assert.equal(separate.json().email, null, 'the address belongs to someone else')
  assert.equal(separate.json().username, `${existing.username}2`, 'a taken name gets a number')
  assert.equal(separate.json().is_email_verified, false)
})

test("names come from the e-mail or the full name when no preferred username is given, in Django's alphabet", async () => {
  const byEmail = person({ preferred_username: undefined, email: `zoë.o'hara+${process.pid}@example.org` })
  const first = await t.send('POST', '/auth/social_auth/', {
    provider: 'facebook',
    access_token: await provider.accessTokenFor(byEmail.sub),
  })
  assert.equal(first.json().username, `zoe.ohara+${process.pid}`)
  const byName = person({
    preferred_username: undefined,
    email: undefined,
    email_verified: undefined,
    given_name: 'Jean Luc',
    family_name: 'Picard',
  })
  const second = await t.send('POST', '/auth/social_auth/', {
    provider: 'facebook',
    access_token: await provider.accessTokenFor(byName.sub),
  })
  assert.match(second.json().username, /^Jean_Luc_Picard\d*$/)
  assert.equal(second.json().email, null)
})

test('signing in reactivates a deactivated account; a deleted one never signs in', async () => {
  const account = person()
  const accessToken = await provider.accessTokenFor(account.sub)
  const { id } = (await t.send('POST', '/auth/social_auth/', { provider: 'facebook', access_token: accessToken })).json()
  await t.database.db.updateTable('users').set({ is_active: false }).where('id', '=', id).execute()
  const back = await t.send('POST', '/auth/social_auth/', { provider: 'facebook', access_token: accessToken })
  assert.equal(back.statusCode, 200)
  const row = await t.database.db.selectFrom('users').select('is_active').where('id', '=', id).executeTakeFirstOrThrow()
  assert.equal(row.is_active, true)

  // Deleting removes the link; a link left to a deleted account must still not sign in.
  await t.database.db.updateTable('users').set({ is_deleted: true, is_active: false }).where('id', '=', id).execute()
  const deleted = await t.send('POST', '/auth/social_auth/', { provider: 'facebook', access_token: accessToken })
  assert.equal(deleted.statusCode, 400)
  assert.deepEqual(deleted.json(), { non_field_errors: ['This account has been deleted.'] })
})

test('two first sign-ins of one person at once make one account', async () => {
  const account = person()
  const accessToken = await provider.accessTokenFor(account.sub)
  const answers = await Promise.all(
    [1, 2, 3].map(() => t.send('POST', '/auth/social_auth/', { provider: 'facebook', access_token: accessToken })),
  )
  assert.deepEqual(
    answers.map((answer) => answer.statusCode),
    [200, 200, 200],
    answers.map((answer) => answer.body).join('\n'),
  )
  assert.equal(new Set(answers.map((answer) => answer.json().id)).size, 1)
  assert.equal(answers.filter((answer) => answer.json().created).length, 1)
})
