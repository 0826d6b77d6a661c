import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp

before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

/** Shaped like the real thing: an FCM token is an instance id, a colon and a long URL-safe string. */
const fcmToken = (length = 90) =>
  `${randomBytes(16).toString('base64url').slice(0, 22)}:APA91b${randomBytes(length).toString('base64url').slice(0, length)}`
const apnsToken = () => randomBytes(32).toString('hex')

async function person() {
  const user = await insertUser(t.database.db)
  return { user, token: await t.tokenFor(user.id) }
}

const auth = (token: string) => ({ authorization: `Token ${token}` })

test('Android registers as it does: JSON with active true; 201 with the device and no detail', async () => {
  const { token } = await person()
  const registration = fcmToken()
  const response = await t.send('POST', '/api-push/device/gcm/', { name: 'Pixel 8', registration_id: registration, active: true }, token)
  assert.equal(response.statusCode, 201, response.body)
  const device = response.json()
  assert.deepEqual(Object.keys(device).sort(), ['active', 'date_created', 'id', 'name', 'registration_id'])
  assert.deepEqual([device.name, device.registration_id, device.active], ['Pixel 8', registration, true])
  assert.match(device.date_created, TIMESTAMP)
  assert.ok(!('detail' in device), 'the Android app reads a detail key as failure')
})

test('iOS registers as it does: active as the string "1", JSON or form; it reads registration_id back', async () => {
  const { token } = await person()
  const json = apnsToken()
  const response = await t.send('POST', '/api-push/device/apns/', { name: "Ada's iPhone", registration_id: json, active: '1' }, token)
  assert.equal(response.statusCode, 201, response.body)
  assert.equal(response.json().registration_id, json)
  assert.equal(response.json().active, true)
  const form = apnsToken()
  const formed = await t.request({
    method: 'POST',
    url: '/api-push/device/apns/',
    headers: { ...auth(token), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ name: 'iPad', registration_id: form, active: '1' }).toString(),
  })
  assert.equal(formed.statusCode, 201, formed.body)
  assert.equal(formed.json().active, true)
})

test("each kind lists only the caller's devices of that kind, in the pagination envelope", async () => {
  const { user, token } = await person()
  const other = await person()
  const gcm = fcmToken()
  await t.send('POST', '/api-push/device/gcm/', { name: 'mine', registration_id: gcm, active: true }, token)
  await t.send('POST', '/api-push/device/apns/', { name: 'mine too', registration_id: apnsToken(), active: '1' }, token)
  await t.send('POST', '/api-push/device/gcm/', { name: 'theirs', registration_id: fcmToken(), active: true }, other.token)
  const list = await t.json('/api-push/device/gcm/', auth(token))
  assert.deepEqual(Object.keys(list), ['count', 'next', 'previous', 'next_id', 'previous_id', 'results'])
  assert.equal(list.count, 1)
  assert.equal(list.results[0].registration_id, gcm)
  assert.equal((await t.json('/api-push/device/apns/', auth(token))).count, 1)
  const stored = await t.database.db
    .selectFrom('push_devices')
    .select('user_id')
    .where('registration_id', '=', gcm)
    .executeTakeFirstOrThrow()
  assert.equal(stored.user_id, user.id)
})

test('Android deletes without the trailing slash, iOS with it; both answer 204', async () => {
  const { token } = await person()
  const gcm = fcmToken(40)
  const apns = apnsToken()
  await t.send('POST', '/api-push/device/gcm/', { name: 'a', registration_id: gcm, active: true }, token)
  await t.send('POST', '/api-push/device/apns/', { name: 'i', registration_id: apns, active: '1' }, token)
  const android = await t.send('DELETE', `/api-push/device/gcm/${gcm}`, undefined, token)
  assert.equal(android.statusCode, 204, android.body)
  assert.equal(android.body, '')
  const ios = await t.send('DELETE', `/api-push/device/apns/${apns}/`, undefined, token)
  assert.equal(ios.statusCode, 204, ios.body)
  assert.equal((await t.get(`/api-push/device/gcm/${gcm}/`, auth(token))).statusCode, 404)
  assert.equal((await t.get(`/api-push/device/apns/${apns}`, auth(token))).statusCode, 404)
})

test('only the owner reads, changes or deletes a device; unknown ids are 404, anonymous callers 403', async () => {
  const owner = await person()
  const stranger = await person()
  const registration = apnsToken()
  await t.send('POST', '/api-push/device/apns/', { name: 'phone', registration_id: registration, active: '1' }, owner.token)
  for (const url of [`/api-push/device/apns/${registration}`, `/api-push/device/apns/${registration}/`]) {
    for (const method of ['DELETE', 'PATCH'] as const) {
      const refused = await t.send(method, url, method === 'PATCH' ? { active: false } : undefined, stranger.token)
      assert.equal(refused.statusCode, 403, `${method} ${url}`)
    }
    assert.equal((await t.get(url, auth(stranger.token))).statusCode, 403)
    assert.equal((await t.send('DELETE', url)).statusCode, 403, 'anonymous')
  }
  assert.equal((await t.json(`/api-push/device/apns/${registration}/`, auth(owner.token))).active, true, 'untouched')
  assert.equal((await t.send('DELETE', `/api-push/device/apns/${apnsToken()}/`, undefined, owner.token)).statusCode, 404)
  assert.equal(
    (await t.send('DELETE', `/api-push/device/gcm/${registration}`, undefined, owner.token)).statusCode,
    404,
    'the kinds are separate',
  )
  for (const url of ['/api-push/device/gcm/', '/api-push/device/apns/']) {
    assert.equal((await t.get(url)).statusCode, 403)
    assert.equal((await t.send('POST', url, { registration_id: apnsToken() })).statusCode, 403)
  }
})

test('registering a known registration id moves it to the caller: 200, one row, name and state updated', async () => {
  const first = await person()
  const second = await person()
  const registration = fcmToken()
  const created = await t.send(
    'POST',
    '/api-push/device/gcm/',
    { name: 'shared tablet', registration_id: registration, active: true },
    first.token,
  )
  const moved = await t.send(
    'POST',
    '/api-push/device/gcm/',
    { name: 'my tablet', registration_id: registration, active: true },
    second.token,
  )
  assert.equal(moved.statusCode, 200, moved.body)
  assert.equal(moved.json().id, created.json().id)
  assert.equal(moved.json().name, 'my tablet')
  assert.equal((await t.json('/api-push/device/gcm/', auth(first.token))).count, 0)
  assert.equal((await t.json('/api-push/device/gcm/', auth(second.token))).count, 1)
  const again = await t.send('POST', '/api-push/device/gcm/', { registration_id: registration }, second.token)
  assert.equal(again.statusCode, 200)
  assert.equal(again.json().name, 'my tablet', 'fields not sent are kept')
  const rows = await t.database.db.selectFrom('push_devices').select('id').where('registration_id', '=', registration).execute()
  assert.equal(rows.length, 1)
})

test('PUT and PATCH change a device; a registration id taken by another device is 400', async () => {
  const { token } = await person()
  const registration = apnsToken()
  const taken = apnsToken()
  await t.send('POST', '/api-push/device/apns/', { name: 'old', registration_id: registration, active: '1' }, token)
  await t.send('POST', '/api-push/device/apns/', { name: 'other', registration_id: taken, active: '1' }, token)
  const patched = await t.send('PATCH', `/api-push/device/apns/${registration}/`, { active: '0' }, token)
  assert.equal(patched.statusCode, 200, patched.body)
  assert.deepEqual([patched.json().name, patched.json().active], ['old', false])
  const renewed = apnsToken()
  const put = await t.send('PUT', `/api-push/device/apns/${registration}`, { name: 'new', registration_id: renewed, active: true }, token)
  assert.equal(put.statusCode, 200, put.body)
  assert.deepEqual([put.json().name, put.json().registration_id, put.json().active], ['new', renewed, true])
  const clash = await t.send('PATCH', `/api-push/device/apns/${renewed}/`, { registration_id: taken }, token)
  assert.equal(clash.statusCode, 400)
  assert.deepEqual(clash.json(), { registration_id: ['A device with this registration id already exists.'] })
  const incomplete = await t.send('PUT', `/api-push/device/apns/${renewed}/`, { name: 'no id' }, token)
  assert.deepEqual(incomplete.json(), { registration_id: ['This field is required.'] })
})

test('bad bodies are 400 naming the field and register nothing', async () => {
  const { token } = await person()
  const cases: [string, object, string][] = [
    ['apns', { registration_id: 'not-hex-at-all' }, 'registration_id'],
    ['apns', { registration_id: 'a'.repeat(201) }, 'registration_id'],
    ['gcm', { registration_id: 'has/a/slash' }, 'registration_id'],
    ['gcm', { registration_id: 'x'.repeat(4097) }, 'registration_id'],
    ['gcm', { registration_id: '' }, 'registration_id'],
    ['gcm', { name: 'no id' }, 'registration_id'],
    ['gcm', { registration_id: fcmToken(), active: 'maybe' }, 'active'],
    ['apns', { registration_id: apnsToken(), name: 'n'.repeat(256) }, 'name'],
  ]
  for (const [kind, body, field] of cases) {
    const response = await t.send('POST', `/api-push/device/${kind}/`, body, token)
    assert.equal(response.statusCode, 400, `${kind} ${JSON.stringify(body).slice(0, 60)}`)
    assert.deepEqual(Object.keys(response.json()), [field])
  }
  assert.equal((await t.json('/api-push/device/gcm/', auth(token))).count, 0)
  assert.equal((await t.json('/api-push/device/apns/', auth(token))).count, 0)
})

test('a full-length FCM token works in the path, without the trailing slash too', async () => {
  const { token } = await person()
  const registration = fcmToken(140)
  assert.ok(registration.length > 160)
  await t.send('POST', '/api-push/device/gcm/', { name: 'Pixel', registration_id: registration, active: true }, token)
  const response = await t.send('DELETE', `/api-push/device/gcm/${registration}`, undefined, token)
  assert.equal(response.statusCode, 204, response.body)
})
