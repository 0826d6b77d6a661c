import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { Database } from '../../src/db/database.ts'
import { serverUrl } from '../helpers/databases.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'

/**
 * Requests fired at once that race for one unique value (or one row) answer what they would answer one after
 * the other: one wins, the others get DRF's uniqueness message on the field, or 404 when the row is gone.
 * On PGlite the requests run one after the other; on PostgreSQL they race for real.
 */

let t: TestApp
let serial = 0

before(async () => {
  t = await createTestApp('tiny', {}, (app) => {
    // Writes that skip any check of their own, so the central handler meets the database's refusal itself.
    app.post('/api/test_unchecked_users/', { config: { access: 'anyone' } }, async (request) => {
      const { username, email } = request.body as { username: string; email: string }
      return app.db.insertInto('users').values({ username, email, first_name: '', last_name: '' }).returning('id').executeTakeFirstOrThrow()
    })
    app.post('/api/test_unchecked_renames/', { config: { access: 'anyone' } }, async () =>
      app.db.updateTable('users').set({ first_name: 'gone' }).where('id', '=', -1).returning('id').executeTakeFirstOrThrow(),
    )
  })
})
after(() => t.close())

const on = serverUrl() ? 'PostgreSQL (racing)' : 'PGlite (serialised)'
const fresh = () => `racer${process.pid}x${++serial}`

async function count(table: keyof Database): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Status codes with how often each came. */
const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((out, status) => ({ ...out, [status]: (out[status] ?? 0) + 1 }), {})

test('a unique violation reaching the central handler names the field with the sequential message', async () => {
  const existing = await t.database.db
    .selectFrom('users')
    .select(['username', 'email'])
    .where('email', 'is not', null)
    .orderBy('id')
    .executeTakeFirstOrThrow()
  const before = await count('users')
  const username = await t.send('POST', '/api/test_unchecked_users/', {
    username: existing.username.toUpperCase(),
    email: `${fresh()}@example.org`,
  })
  assert.equal(username.statusCode, 400)
  assert.deepEqual(username.json(), { username: ['A user with that username already exists.'] })
  const email = await t.send('POST', '/api/test_unchecked_users/', { username: fresh(), email: existing.email!.toUpperCase() })
  assert.equal(email.statusCode, 400)
  assert.deepEqual(email.json(), { email: ['A user with that email address already exists.'] })
  assert.equal(await count('users'), before)
})

test('a row gone before the write that expected it answers 404', async () => {
  const response = await t.send('POST', '/api/test_unchecked_renames/', {})
  assert.equal(response.statusCode, 404)
  assert.deepEqual(response.json(), { detail: 'Not found.' })
})

test(`six registrations with one e-mail: one account, five refusals on email (${on})`, async () => {
  const email = `${fresh()}@example.org`
  const before = await count('users')
  const responses = await Promise.all(
    Array.from({ length: 6 }, () => t.send('POST', '/auth/register/', { username: fresh(), email, password: 'lantern-orchard-42' })),
  )
  assert.deepEqual(tally(responses.map((response) => response.statusCode)), { 201: 1, 400: 5 })
  for (const response of responses.filter((response) => response.statusCode === 400)) {
    assert.deepEqual(response.json(), { email: ['A user with that email address already exists.'] })
  }
  assert.equal(await count('users'), before + 1)
})

test(`six registrations with one username: one account, five refusals on username (${on})`, async () => {
  const username = fresh()
  const before = await count('users')
  const responses = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      t.send('POST', '/auth/register/', {
        username: i % 2 ? username.toUpperCase() : username,
        email: `${fresh()}@example.org`,
        password: 'lantern-orchard-42',
      }),
    ),
  )
  assert.deepEqual(tally(responses.map((response) => response.statusCode)), { 201: 1, 400: 5 })
  for (const response of responses.filter((response) => response.statusCode === 400)) {
    assert.deepEqual(response.json(), { username: ['A user with that username already exists.'] })
  }
  assert.equal(await count('users'), before + 1)
})

test(`eight people renaming themselves to one username at once: one gets it (${on})`, async () => {
  const username = fresh()
  const people = await Promise.all(Array.from({ length: 8 }, async () => t.tokenFor((await insertUser(t.database.db)).id)))
  const responses = await Promise.all(people.map((token) => t.send('PATCH', '/auth/me/', { username }, token)))
  assert.deepEqual(tally(responses.map((response) => response.statusCode)), { 200: 1, 400: 7 })
  for (const response of responses.filter((response) => response.statusCode === 400)) {
    assert.deepEqual(response.json(), { username: ['A user with that username already exists.'] })
  }
  const holders = await t.database.db.selectFrom('users').select('id').where('username', '=', username).execute()
  assert.equal(holders.length, 1)
})

test(`eight people taking one e-mail address at once: one gets it (${on})`, async () => {
  const email = `${fresh()}@example.org`
  const people = await Promise.all(Array.from({ length: 8 }, async () => t.tokenFor((await insertUser(t.database.db)).id)))
  const responses = await Promise.all(people.map((token) => t.send('PATCH', '/auth/me/', { email }, token)))
  assert.deepEqual(tally(responses.map((response) => response.statusCode)), { 200: 1, 400: 7 })
  for (const response of responses.filter((response) => response.statusCode === 400)) {
    assert.deepEqual(response.json(), { email: ['A user with that email address already exists.'] })
  }
  const holders = await t.database.db.selectFrom('users').select('id').where('email', '=', email).execute()
  assert.equal(holders.length, 1)
})

const fcmToken = () => `${randomBytes(16).toString('base64url').slice(0, 22)}:APA91b${randomBytes(90).toString('base64url').slice(0, 90)}`

async function deviceOfNewUser() {
  const token = await t.tokenFor((await insertUser(t.database.db)).id)
  const registration = fcmToken()
  const created = await t.send('POST', '/api-push/device/gcm/', { name: 'phone', registration_id: registration }, token)
  assert.equal(created.statusCode, 201, created.body)
  return { token, registration }
}

test(`PATCH and DELETE of one push device at once: the delete wins, the patch answers 200 or 404 (${on})`, async () => {
  for (let round = 0; round < 5; round++) {
    const { token, registration } = await deviceOfNewUser()
    const url = `/api-push/device/gcm/${registration}/`
    const [patched, deleted] = await Promise.all([
      t.send('PATCH', url, { name: 'renamed' }, token),
      t.send('DELETE', url, undefined, token),
    ])
    assert.equal(deleted.statusCode, 204)
    assert.ok(patched.statusCode === 200 || patched.statusCode === 404, `PATCH answered ${patched.statusCode}: ${patched.body}`)
    if (patched.statusCode === 404) assert.deepEqual(patched.json(), { detail: 'Not found.' })
    assert.equal((await t.get(url, { authorization: `Token ${token}` })).statusCode, 404)
  }
})

test(`two DELETEs of one push device at once: 204 and 404, as one after the other (${on})`, async () => {
  for (let round = 0; round < 5; round++) {
    const { token, registration } = await deviceOfNewUser()
    const url = `/api-push/device/gcm/${registration}/`
    const before = await count('push_devices')
    const responses = await Promise.all([t.send('DELETE', url, undefined, token), t.send('DELETE', url, undefined, token)])
    assert.deepEqual(tally(responses.map((response) => response.statusCode)), { 204: 1, 404: 1 })
    assert.deepEqual(responses.find((response) => response.statusCode === 404)!.json(), { detail: 'Not found.' })
    assert.equal(await count('push_devices'), before - 1)
  }
})

test(`two devices renamed to one registration id at once: one gets it, the other the field's message (${on})`, async () => {
  const first = await deviceOfNewUser()
  const second = await deviceOfNewUser()
  const target = fcmToken()
  const responses = await Promise.all([
    t.send('PATCH', `/api-push/device/gcm/${first.registration}/`, { registration_id: target }, first.token),
    t.send('PATCH', `/api-push/device/gcm/${second.registration}/`, { registration_id: target }, second.token),
  ])
  assert.deepEqual(tally(responses.map((response) => response.statusCode)), { 200: 1, 400: 1 })
  assert.deepEqual(responses.find((response) => response.statusCode === 400)!.json(), {
    registration_id: ['A device with this registration id already exists.'],
  })
})
