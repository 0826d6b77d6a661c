import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { hashPassword } from '../../src/modules/accounts/passwords.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'

/** One hash at a time and one waiting: a burst of sign-ins beyond that is turned away at once instead of piling up. */
let t: TestApp
before(async () => {
  // Real cost: the burst must still be hashing when the later sign-ins arrive.
  t = await createTestApp('empty', { PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '1' }, undefined, { realPasswordCost: true })
  await insertUser(t.database.db, { username: 'ada', password_hash: await hashPassword('the right passphrase 1') })
})
after(() => t.close())

const login = (username: string, password: string) => t.send('POST', '/auth/login/', { username, password })

test('sign-ins past the hashes running and waiting answer 503 with Retry-After; the others are answered as usual', async () => {
  const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => login(i % 2 ? 'ada' : `nobody${i}`, `wrong guess ${i}`)))
  const refused = burst.filter((response) => response.statusCode === 503)
  const checked = burst.filter((response) => response.statusCode === 400)
  assert.equal(refused.length + checked.length, burst.length, burst.map((response) => `${response.statusCode} ${response.body}`).join('\n'))
  assert.ok(refused.length >= 1, 'some of the burst is turned away')
  assert.ok(checked.length >= 2, 'the running hash and the waiting one are checked')
  for (const response of refused) {
    assert.equal(response.headers['retry-after'], '2')
    assert.deepEqual(response.json(), { detail: 'Too many sign-ins are being checked right now; try again in a few seconds.' })
  }
  for (const response of checked) assert.deepEqual(response.json(), { non_field_errors: ['Unable to log in with provided credentials.'] })

  const signedIn = await login('ada', 'the right passphrase 1')
  assert.equal(signedIn.statusCode, 200, 'once the burst is over, sign-in works')
  assert.match(signedIn.json().auth_token, /^[0-9a-f]{40}$/)
})
