import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import { Redis } from 'ioredis'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { hashPassword } from '../../src/modules/accounts/passwords.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { dropRedisKeys, REDIS_URL, redisPrefix, redisSkip } from '../helpers/redis.ts'

const redisSkipped = await redisSkip()
const REDIS_PREFIX = redisPrefix('rate-limits')

const opened: TestApp[] = []
after(async () => {
  // The first app owns the database the others share: it closes last.
  for (const t of opened.reverse()) await t.close()
  if (!redisSkipped) await dropRedisKeys(REDIS_PREFIX)
})

/**
 * An app whose client addresses come from X-Forwarded-For, with small limits (the others stay at the test default).
 * Each has counters of its own; all share one database, as the rows they write never meet.
 */
async function limitedApp(env: Record<string, string>): Promise<TestApp> {
  const t = await createTestApp('empty', { TRUST_PROXY: 'true', ...env }, undefined, { database: opened[0]?.database })
  opened.push(t)
  return t
}

let addresses = 0
/** A client address no other test uses. */
const newIp = () => `198.51.100.${++addresses}`

function get(t: TestApp, url: string, ip: string, headers: Record<string, string> = {}) {
  return t.request({ method: 'GET', url, headers: { 'x-forwarded-for': ip, ...headers } })
}

async function statuses(count: number, call: () => Promise<LightMyRequestResponse>): Promise<number[]> {
  const codes: number[] = []
  for (let i = 0; i < count; i++) codes.push((await call()).statusCode)
  return codes
}

function assertThrottled(response: LightMyRequestResponse) {
  assert.equal(response.statusCode, 429, response.body)
  const wait = Number(response.headers['retry-after'])
  assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 60, `Retry-After is whole seconds within the minute: ${wait}`)
  assert.deepEqual(response.json(), { detail: `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.` })
  assert.equal(response.headers['x-ratelimit-remaining'], '0')
  assert.equal(response.headers['x-ratelimit-reset'], String(wait))
}

test('requests without a key are counted per IP address with the anonymous allowance; 429 answers as DRF does', async () => {
  const t = await limitedApp({ RATE_LIMIT_ANONYMOUS: '3' })
  const ip = newIp()
  const first = await get(t, '/api/tags/', ip)
  assert.equal(first.statusCode, 200)
  assert.equal(first.headers['x-ratelimit-limit'], '3')
  assert.equal(first.headers['x-ratelimit-remaining'], '2')
  assert.ok(Number(first.headers['x-ratelimit-reset']) >= 1)
  assert.deepEqual(await statuses(2, () => get(t, '/api/tags/', ip)), [200, 200])
  const refused = await get(t, '/api/tags/', ip)
  assertThrottled(refused)
  assert.equal(refused.headers['x-ratelimit-limit'], '3')
  assertThrottled(await get(t, '/api/', ip))
  assert.equal((await get(t, '/api/tags/', newIp())).statusCode, 200, 'another address has its own allowance')
})

test('OPTIONS metadata and unrouted paths are counted; CORS preflights are not', async () => {
  const t = await limitedApp({ RATE_LIMIT_ANONYMOUS: '3' })
  const ip = newIp()
  assert.equal((await t.request({ method: 'OPTIONS', url: '/api/tags/', headers: { 'x-forwarded-for': ip } })).statusCode, 200)
  assert.equal((await get(t, '/api/no-such-thing/', ip)).statusCode, 404)
  assert.equal((await get(t, '/api/tags/', ip)).statusCode, 200)
  assertThrottled(await get(t, '/api/no-such-thing/', ip))

  const browser = newIp()
  const preflight = () =>
    t.request({
      method: 'OPTIONS',
      url: '/api/tags/',
      headers: { 'x-forwarded-for': browser, origin: 'https://web.example.org', 'access-control-request-method': 'GET' },
    })
  assert.ok((await statuses(5, preflight)).every((code) => code !== 429))
  const real = await get(t, '/api/tags/', browser)
  assert.equal(real.statusCode, 200)
  assert.equal(real.headers['x-ratelimit-remaining'], '2', 'the preflights used none of the allowance')
})

test('requests with a key are counted per key with the key allowance, apart from the anonymous tier', async () => {
  const t = await limitedApp({ RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_APP_KEY: '4' })
  const keys = appKeysRepository(t.database.db)
  const { key: partner } = await keys.create('partner')
  const { key: other } = await keys.create('other partner')
  const ip = newIp()
  const withKey = (key: string, from: string) => get(t, '/api/tags/', from, { appauthorization: key })

  const first = await withKey(partner, ip)
  assert.equal(first.headers['x-ratelimit-limit'], '4')
  assert.deepEqual(await statuses(3, () => withKey(partner, ip)), [200, 200, 200], 'more than the anonymous allowance')
  assertThrottled(await withKey(partner, ip))
  assertThrottled(await withKey(partner, newIp()))
  assert.equal((await withKey(other, ip)).statusCode, 200, 'another key has its own allowance')
  assert.deepEqual(await statuses(3, () => get(t, '/api/tags/', ip)), [200, 200, 429], 'the same address without a key: the anonymous tier')
})

test('signed-in requests are also counted per user, from any address', async () => {
  const t = await limitedApp({ RATE_LIMIT_USER: '3' })
  const alice = await t.tokenFor((await insertUser(t.database.db)).id)
  const bob = await t.tokenFor((await insertUser(t.database.db)).id)
  const ip = newIp()
  const me = (token: string, from: string) => get(t, '/auth/me/', from, { authorization: `Token ${token}` })

  assert.equal((await me(alice, ip)).headers['x-ratelimit-limit'], '3')
  assert.equal((await me(alice, newIp())).statusCode, 200)
  assert.equal((await me(alice, newIp())).statusCode, 200)
  assertThrottled(await me(alice, newIp()))
  assert.equal((await me(bob, ip)).statusCode, 200, 'another user on the same address')
  assert.equal((await get(t, '/api/tags/', ip)).statusCode, 200, 'the same address signed out')
})

test('every request also counts per IP address, whatever key or user it comes with', async () => {
  const t = await limitedApp({ RATE_LIMIT_IP: '4' })
  const keys = appKeysRepository(t.database.db)
  const token = await t.tokenFor((await insertUser(t.database.db)).id)
  const ip = newIp()
  assert.equal((await get(t, '/api/tags/', ip, { appauthorization: (await keys.create('one')).key })).statusCode, 200)
  assert.equal((await get(t, '/api/tags/', ip, { appauthorization: (await keys.create('two')).key })).statusCode, 200)
  assert.equal((await get(t, '/auth/me/', ip, { authorization: `Token ${token}` })).statusCode, 200)
  assert.equal((await get(t, '/api/tags/', ip)).statusCode, 200)
  const refused = await get(t, '/api/tags/', ip, { appauthorization: (await keys.create('three')).key })
  assertThrottled(refused)
  assert.equal(refused.headers['x-ratelimit-limit'], '4')
  assert.equal((await get(t, '/api/tags/', newIp())).statusCode, 200)
})

test('requests with bad credentials count per IP address too, and are refused with 429 once over it', async () => {
  const t = await limitedApp({ RATE_LIMIT_IP: '3' })
  const ip = newIp()
  const badToken = { authorization: `Token ${'0'.repeat(40)}` }
  assert.deepEqual(await statuses(2, () => get(t, '/api/tags/', ip, badToken)), [401, 401])
  assert.equal((await get(t, '/api/tags/', ip, { appauthorization: 'not-a-key' })).statusCode, 401)
  assertThrottled(await get(t, '/api/tags/', ip, badToken))
  assertThrottled(await get(t, '/api/tags/', ip))
})

function post(t: TestApp, url: string, ip: string, body: unknown, headers: Record<string, string> = {}) {
  return t.request({
    method: 'POST',
    url,
    headers: { 'x-forwarded-for': ip, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  })
}
const login = (t: TestApp, ip: string, username: string, password = 'not the password 1') =>
  post(t, '/auth/login/', ip, { username, password })

test('sign-up (register and check_email) has an allowance of its own per IP address, apart from sign-in', async () => {
  const t = await limitedApp({ RATE_LIMIT_SIGN_UP: '2', RATE_LIMIT_SIGN_IN: '50', RATE_LIMIT_ANONYMOUS: '50' })
  const checkEmail = (from: string) => get(t, '/auth/check_email/?email=nobody@example.net', from)
  const ip = newIp()
  const checked = await checkEmail(ip)
  assert.equal(checked.statusCode, 200)
  assert.equal(checked.headers['x-ratelimit-limit'], '2')
  assert.equal(checked.headers['x-ratelimit-remaining'], '1')
  const registered = await post(t, '/auth/register/', ip, {
    email: 'crowd1@example.net',
    username: 'crowd1',
    password: 'a long unusual passphrase 1',
  })
  assert.equal(registered.statusCode, 201, registered.body)
  assertThrottled(await checkEmail(ip))
  assertThrottled(
    await post(t, '/auth/register/', ip, { email: 'crowd2@example.net', username: 'crowd2', password: 'a long unusual passphrase 2' }),
  )
  const signIn = await login(t, ip, 'crowd1', 'a long unusual passphrase 1')
  assert.equal(signIn.statusCode, 200, 'signing in has its own allowance')
  assert.equal((await checkEmail(newIp())).statusCode, 200, 'another address has its own allowance')
})

test("guessing one account's password is refused after a few tries from one address; other accounts and addresses go on", async () => {
  const t = await limitedApp({ RATE_LIMIT_SIGN_IN_ACCOUNT: '3', RATE_LIMIT_SIGN_IN: '50' })
  await insertUser(t.database.db, { username: 'ada' })
  const ip = newIp()
  const first = await login(t, ip, 'ada')
  assert.equal(first.statusCode, 400)
  assert.equal(first.headers['x-ratelimit-limit'], '3', 'the headers describe the allowance closest to refusing')
  assert.equal(first.headers['x-ratelimit-remaining'], '2')
  assert.deepEqual(await statuses(2, () => login(t, ip, 'ada')), [400, 400])
  assertThrottled(await login(t, ip, 'ada'))
  // The same name in another letter case, or with spaces around it, is the same account.
  assertThrottled(await login(t, ip, ' ADA '))
  assert.equal((await login(t, ip, 'somebody-else')).statusCode, 400, 'another account from the same address')
  assert.equal((await login(t, newIp(), 'ada')).statusCode, 400, 'the same account from another address')

  // The same allowance covers the other checks that name an account: a reset code and an e-mail code.
  const codes = newIp()
  const resetConfirm = () =>
    post(t, '/auth/password-reset-confirm/', codes, { email: 'ada@example.net', code: 'guess', new_password: 'a long unusual passphrase' })
  const confirm = () => get(t, '/auth/confirm_email/?code=guess&email=ada@example.net', codes)
  const linkSignIn = () => post(t, '/auth/onetime_signin/', codes, { email: 'ADA@example.net', code: 'guess' })
  assert.deepEqual([(await resetConfirm()).statusCode, (await confirm()).statusCode, (await linkSignIn()).statusCode], [400, 400, 400])
  assertThrottled(await resetConfirm())
  assert.equal(
    (
      await post(t, '/auth/password-reset-confirm/', codes, {
        email: 'bob@example.org',
        code: 'guess',
        new_password: 'a long unusual passphrase',
      })
    ).statusCode,
    400,
  )
})

test('sign-in attempts of every kind share a larger ceiling per IP address, which stops spraying many accounts', async () => {
  const t = await limitedApp({ RATE_LIMIT_SIGN_IN: '3', RATE_LIMIT_SIGN_IN_ACCOUNT: '50' })
  const ip = newIp()
  const first = await login(t, ip, 'one')
  assert.equal(first.statusCode, 400)
  assert.equal(first.headers['x-ratelimit-limit'], '3')
  assert.equal((await login(t, ip, 'two')).statusCode, 400)
  assert.equal((await post(t, '/auth/social_auth/', ip, { provider: 'facebook', access_token: 'x' })).statusCode, 400)
  assertThrottled(await login(t, ip, 'four'))
  assert.equal((await get(t, '/auth/check_email/?email=nobody@example.net', ip)).statusCode, 200, 'sign-up is counted apart')
  assert.equal((await login(t, newIp(), 'five')).statusCode, 400)
})

test('operations that send mail or SMS keep a small allowance per IP address, and per user when signed in', async () => {
  const t = await limitedApp({ RATE_LIMIT_SENSITIVE: '2', RATE_LIMIT_ANONYMOUS: '50' })
  const ip = newIp()
  const reset = (from: string) => post(t, '/auth/password-reset/', from, { email: 'nobody@example.net' })
  assert.deepEqual(await statuses(2, () => reset(ip)), [200, 200])
  assertThrottled(await reset(ip))
  // Sign-in links share it.
  assertThrottled(await post(t, '/auth/onetime_signin/', ip, { email: 'nobody@example.net' }))
  assert.equal((await login(t, ip, 'someone')).statusCode, 400, 'sign-in is counted apart')

  const user = await insertUser(t.database.db)
  const token = await t.tokenFor(user.id)
  const ask = (from: string) => post(t, '/auth/request_confirm_email/', from, {}, { authorization: `Token ${token}` })
  assert.notEqual((await ask(newIp())).statusCode, 429)
  assert.notEqual((await ask(newIp())).statusCode, 429)
  assertThrottled(await ask(newIp()))
})

test("operations that ask for the signed-in user's password again are limited per user, from any address", async () => {
  const t = await limitedApp({ RATE_LIMIT_SIGN_IN_ACCOUNT: '2' })
  const token = await t.tokenFor((await insertUser(t.database.db, { password_hash: await hashPassword('the real passphrase 9') })).id)
  const change = (from: string) =>
    post(
      t,
      '/auth/change-password/',
      from,
      { old_password: 'a wrong guess', new_password: 'a long unusual passphrase' },
      { authorization: `Token ${token}` },
    )
  assert.deepEqual([(await change(newIp())).statusCode, (await change(newIp())).statusCode], [400, 400])
  assertThrottled(await change(newIp()))
  assertThrottled(await post(t, '/auth/deactivate-account/', newIp(), { password: 'another guess' }, { authorization: `Token ${token}` }))
})

test('signed-in requests without a key count per user, not against the anonymous allowance of their address', async () => {
  const t = await limitedApp({ RATE_LIMIT_ANONYMOUS: '2' })
  const ip = newIp()
  const tokens = await Promise.all([1, 2, 3].map(async () => t.tokenFor((await insertUser(t.database.db)).id)))
  for (const token of tokens) {
    assert.deepEqual(await statuses(2, () => get(t, '/auth/me/', ip, { authorization: `Token ${token}` })), [200, 200])
  }
  assert.deepEqual(
    await statuses(3, () => get(t, '/api/tags/', ip)),
    [200, 200, 429],
    'signed out, the address has its anonymous allowance',
  )
})

test('health probes (routes flagged probe) are neither counted nor refused', async () => {
  const t = await limitedApp({ RATE_LIMIT_IP: '2', RATE_LIMIT_ANONYMOUS: '2' })
  const ip = newIp()
  assert.deepEqual(await statuses(5, () => get(t, '/healthz', ip)), [200, 200, 200, 200, 200])
  const counted = await get(t, '/api/tags/', ip)
  assert.equal(counted.statusCode, 200)
  assert.equal(counted.headers['x-ratelimit-remaining'], '1', 'the probes used none of the allowance')
  assert.equal((await get(t, '/api/tags/', ip)).statusCode, 200)
  assertThrottled(await get(t, '/api/tags/', ip))
  assert.equal((await get(t, '/healthz', ip)).statusCode, 200, 'still answered once the address is over its limits')
  assert.equal((await get(t, '/readyz', ip)).statusCode, 200)
})

test('a route may declare an extra limit of its own, counted apart and answered the same way', async () => {
  const t = await createTestApp(
    'empty',
    { TRUST_PROXY: 'true' },
    (app) => {
      app.get('/test/limited/', { config: { access: 'anyone', rateLimit: { max: 1 } } }, async () => ({ ok: true }))
    },
    { database: opened[0]?.database },
  )
  opened.push(t)
  const ip = newIp()
  assert.equal((await get(t, '/test/limited/', ip)).statusCode, 200)
  assertThrottled(await get(t, '/test/limited/', ip))
  assert.equal((await get(t, '/api/tags/', ip)).statusCode, 200)
})

test('with Redis, two processes share the counts', { skip: redisSkipped }, async () => {
  const env = { RATE_LIMIT_ANONYMOUS: '3', REDIS_URL, REDIS_PREFIX }
  const a = await limitedApp(env)
  const b = await limitedApp(env)
  const ip = newIp()
  assert.equal((await get(a, '/api/tags/', ip)).statusCode, 200)
  assert.equal((await get(b, '/api/tags/', ip)).statusCode, 200)
  const third = await get(a, '/api/tags/', ip)
  assert.equal(third.statusCode, 200)
  assert.equal(third.headers['x-ratelimit-remaining'], '0')
  assertThrottled(await get(b, '/api/tags/', ip))
  assertThrottled(await get(a, '/api/tags/', ip))

  const redis = new Redis(REDIS_URL)
  try {
    assert.equal(await redis.get(`${REDIS_PREFIX}rate-limit:anonymous:${ip}`), '5')
    assert.equal(await redis.get(`${REDIS_PREFIX}rate-limit:ip:${ip}`), '5')
  } finally {
    await redis.quit()
  }
})

test('in memory, each process counts on its own', async () => {
  const a = await limitedApp({ RATE_LIMIT_ANONYMOUS: '2' })
  const b = await limitedApp({ RATE_LIMIT_ANONYMOUS: '2' })
  const ip = newIp()
  assert.deepEqual(await statuses(2, () => get(a, '/api/tags/', ip)), [200, 200])
  assert.deepEqual(await statuses(2, () => get(b, '/api/tags/', ip)), [200, 200])
  assertThrottled(await get(a, '/api/tags/', ip))
})

test('when Redis cannot be reached, the limits are still enforced, counted in the process', async () => {
  // Nothing listens on port 1: every connection is refused.
  const t = await limitedApp({ RATE_LIMIT_ANONYMOUS: '2', REDIS_URL: 'redis://127.0.0.1:1', REDIS_PREFIX })
  const ip = newIp()
  assert.deepEqual(await statuses(2, () => get(t, '/api/tags/', ip)), [200, 200])
  assertThrottled(await get(t, '/api/tags/', ip))
  assert.equal((await get(t, '/api/tags/', newIp())).statusCode, 200)
})
