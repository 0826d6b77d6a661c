import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { MAX_CODE_ATTEMPTS } from '../../src/modules/accounts/codes.repository.ts'
import { normalisePhone } from '../../src/modules/accounts/phone.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { startSmsGateway, type SmsGateway } from '../helpers/sms-gateway.ts'

let t: TestApp
let gateway: SmsGateway
let serial = 0

before(async () => {
  gateway = await startSmsGateway()
  t = await createTestApp('tiny', { SMS_GATEWAY_URL: gateway.url, SMS_GATEWAY_TOKEN: 'gateway-token' })
})
after(async () => {
  await t.close()
  await gateway.close()
})

/** A number nobody else in this file uses, written as people type it, and its E.164 form. */
function freshNumber() {
  const subscriber = String(900000 + ++serial * 7 + (process.pid % 1000) * 1000).padStart(7, '0')
  return { typed: `+44 (0)7700-${subscriber}`, e164: `+447700${subscriber}` }
}

async function signedIn() {
  const user = await insertUser(t.database.db)
  return { user, token: await t.tokenFor(user.id) }
}

async function stored(userId: number) {
  return t.database.db.selectFrom('users').select(['phone', 'is_phone_verified']).where('id', '=', userId).executeTakeFirstOrThrow()
}

test('phone numbers are read in the ways people write them and refused without a country code', () => {
  assert.equal(normalisePhone('+44 7700 900123'), '+447700900123')
  assert.equal(normalisePhone('0044 (7700) 900-123'), '+447700900123')
  assert.equal(normalisePhone('+44 (0)20 7946 0000'), '+442079460000')
  assert.equal(normalisePhone('+1.415.555.2671'), '+14155552671')
  for (const bad of [
    '07700 900123',
    '+44 7700 9001x3',
    '+0044 7700 900123',
    '+123 45',
    '+1234567890123456',
    '',
    '++447700900123',
    '+44/7700900123',
  ]) {
    assert.equal(normalisePhone(bad), null, bad)
  }
})

test('a texted code verifies the number; me then shows it and the verification score grows', async () => {
  const { user, token } = await signedIn()
  const number = freshNumber()
  const before = (await t.json(`/api/users/${user.id}/`)).verification_score

  const send = await t.send('POST', '/auth/verification_sms_send/', { phone: number.typed }, token)
  assert.equal(send.statusCode, 200, send.body)
  assert.deepEqual(Object.keys(send.json()), ['detail'])
  const message = gateway.messages.at(-1)!
  assert.equal(message.to, number.e164, 'the gateway gets the E.164 form')
  assert.equal(message.authorization, 'Bearer gateway-token')
  assert.deepEqual(await stored(user.id), { phone: null, is_phone_verified: false }, 'nothing changes before the code comes back')

  const add = await t.send('POST', '/auth/verification_add/', { code: gateway.lastCode(number.e164) }, token)
  assert.equal(add.statusCode, 200, add.body)
  assert.equal(add.json().id, user.id)
  assert.equal(add.json().phone, number.e164)
  assert.equal(add.json().is_phone_verified, true)
  const me = await t.json('/auth/me/', { authorization: `Token ${token}` })
  assert.equal(me.phone, number.e164)
  const after = await t.json(`/api/users/${user.id}/`)
  assert.equal(after.verification_score, before + 2)

  const again = await t.send('POST', '/auth/verification_add/', { code: gateway.lastCode(number.e164) }, token)
  assert.equal(again.statusCode, 400)
  assert.ok(again.json().code, 'a code works once')
})

test('verification_add also takes the phone, which must be the number the code went to', async () => {
  const { user, token } = await signedIn()
  const number = freshNumber()
  await t.send('POST', '/auth/verification_sms_send/', { phone: number.e164 }, token)
  const code = gateway.lastCode(number.e164)
  const other = await t.send('POST', '/auth/verification_add/', { phone: freshNumber().e164, code }, token)
  assert.equal(other.statusCode, 400)
  assert.deepEqual(Object.keys(other.json()), ['phone'])
  const badPhone = await t.send('POST', '/auth/verification_add/', { phone: 'call me', code }, token)
  assert.deepEqual(Object.keys(badPhone.json()), ['phone'])
  const row = await t.database.db.selectFrom('one_time_codes').select('attempts').where('user_id', '=', user.id).executeTakeFirstOrThrow()
  assert.equal(row.attempts, 0, 'a wrong phone costs no attempt')
  const ok = await t.send('POST', '/auth/verification_add/', { phone: number.typed, code }, token)
  assert.equal(ok.statusCode, 200, ok.body)
  assert.equal(ok.json().phone, number.e164)
})

test(`a wrong code uses an attempt; after ${MAX_CODE_ATTEMPTS} the right code no longer works`, async () => {
  const { user, token } = await signedIn()
  const number = freshNumber()
  await t.send('POST', '/auth/verification_sms_send/', { phone: number.e164 }, token)
  const code = gateway.lastCode(number.e164)
  const wrong = code === '000000' ? '111111' : '000000'
  const first = await t.send('POST', '/auth/verification_add/', { code: wrong }, token)
  assert.equal(first.statusCode, 400)
  assert.deepEqual(first.json(), { code: ['Invalid code.'] })
  for (let attempt = 2; attempt <= MAX_CODE_ATTEMPTS; attempt++) await t.send('POST', '/auth/verification_add/', { code: wrong }, token)
  const late = await t.send('POST', '/auth/verification_add/', { code }, token)
  assert.equal(late.statusCode, 400)
  assert.deepEqual(Object.keys(late.json()), ['code'])
  assert.deepEqual(await stored(user.id), { phone: null, is_phone_verified: false })

  await t.send('POST', '/auth/verification_sms_send/', { phone: number.e164 }, token)
  const fresh = await t.send('POST', '/auth/verification_add/', { code: gateway.lastCode(number.e164) }, token)
  assert.equal(fresh.statusCode, 200, 'a new code starts over')
})

test('a code that is not six digits is refused without using an attempt, and so is a request before any code', async () => {
  const { user, token } = await signedIn()
  const none = await t.send('POST', '/auth/verification_add/', { code: '123456' }, token)
  assert.equal(none.statusCode, 400)
  assert.deepEqual(Object.keys(none.json()), ['code'])
  const number = freshNumber()
  await t.send('POST', '/auth/verification_sms_send/', { phone: number.e164 }, token)
  for (const code of ['12345', 'abcdef', '1234567']) {
    const response = await t.send('POST', '/auth/verification_add/', { code }, token)
    assert.deepEqual(response.json(), { code: ['Enter the six-digit code.'] }, code)
  }
  const missing = await t.send('POST', '/auth/verification_add/', {}, token)
  assert.deepEqual(missing.json(), { code: ['This field is required.'] })
  const row = await t.database.db.selectFrom('one_time_codes').select('attempts').where('user_id', '=', user.id).executeTakeFirstOrThrow()
  assert.equal(row.attempts, 0)
})

test('an expired code is refused', async () => {
  const { user, token } = await signedIn()
  const number = freshNumber()
  await t.send('POST', '/auth/verification_sms_send/', { phone: number.e164 }, token)
  await t.database.db
    .updateTable('one_time_codes')
    .set({ expires_at: sql`now() - interval '1 minute'` })
    .where('user_id', '=', user.id)
    .execute()
  const response = await t.send('POST', '/auth/verification_add/', { code: gateway.lastCode(number.e164) }, token)
  assert.equal(response.statusCode, 400)
  assert.deepEqual(response.json(), { code: ['This code has expired.'] })
  assert.deepEqual(await stored(user.id), { phone: null, is_phone_verified: false })
})

test('a number verified by another account is refused, before and after the code is sent', async () => {
  const number = freshNumber()
  const owner = await insertUser(t.database.db, { phone: number.e164, is_phone_verified: true })
  const { token } = await signedIn()
  const sent = gateway.messages.length
  const taken = await t.send('POST', '/auth/verification_sms_send/', { phone: number.typed }, token)
  assert.equal(taken.statusCode, 400)
  assert.deepEqual(taken.json(), { phone: ['This phone number is already verified by another account.'] })
  assert.equal(gateway.messages.length, sent, 'no text is sent')

  // The other account verifies the number while this one's code is on its way.
  await t.database.db.updateTable('users').set({ is_phone_verified: false }).where('id', '=', owner.id).execute()
  await t.send('POST', '/auth/verification_sms_send/', { phone: number.e164 }, token)
  await t.database.db.updateTable('users').set({ is_phone_verified: true }).where('id', '=', owner.id).execute()
  const late = await t.send('POST', '/auth/verification_add/', { code: gateway.lastCode(number.e164) }, token)
  assert.equal(late.statusCode, 400)
  assert.deepEqual(Object.keys(late.json()), ['phone'])

  const unverified = freshNumber()
  await insertUser(t.database.db, { phone: unverified.e164, is_phone_verified: false })
  const free = await t.send('POST', '/auth/verification_sms_send/', { phone: unverified.e164 }, token)
  assert.equal(free.statusCode, 200, 'an unverified claim on a number blocks nobody')
})

test('bad phone formats are 400 on phone and send nothing', async () => {
  const { token } = await signedIn()
  const sent = gateway.messages.length
  for (const phone of ['07700 900123', 'not a number', '+44 12', '+44 7700 900123 4567 89', '']) {
    const response = await t.send('POST', '/auth/verification_sms_send/', { phone }, token)
    assert.equal(response.statusCode, 400, phone)
    assert.deepEqual(Object.keys(response.json()), ['phone'], phone)
  }
  const missing = await t.send('POST', '/auth/verification_sms_send/', {}, token)
  assert.deepEqual(missing.json(), { phone: ['This field is required.'] })
  assert.equal(gateway.messages.length, sent)
})

test('a failing gateway is 503 with a detail', async () => {
  const { token } = await signedIn()
  gateway.failWith = 500
  try {
    const response = await t.send('POST', '/auth/verification_sms_send/', { phone: freshNumber().e164 }, token)
    assert.equal(response.statusCode, 503)
    assert.equal(typeof response.json().detail, 'string')
  } finally {
    gateway.failWith = null
  }
})

test('verification_remove (POST or DELETE) forgets the number and its verification', async () => {
  for (const method of ['POST', 'DELETE'] as const) {
    const number = freshNumber()
    const user = await insertUser(t.database.db, { phone: number.e164, is_phone_verified: true })
    const token = await t.tokenFor(user.id)
    const response = await t.send(method, '/auth/verification_remove/', method === 'POST' ? {} : undefined, token)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.json().phone, null)
    assert.equal(response.json().is_phone_verified, false)
    assert.deepEqual(await stored(user.id), { phone: null, is_phone_verified: false })
  }
})

test('the phone operations need a signed-in user', async () => {
  for (const [url, body] of [
    ['/auth/verification_sms_send/', { phone: '+447700900123' }],
    ['/auth/verification_add/', { code: '123456' }],
    ['/auth/verification_remove/', {}],
  ] as const) {
    const response = await t.send('POST', url, body)
    assert.equal(response.statusCode, 403, url)
    assert.deepEqual(response.json(), { detail: 'Authentication credentials were not provided.' })
  }
})
