import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac, randomUUID } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

const SECRET = 'webhook-secret-for-tests-0123456789abcdef'
const WEBHOOK = '/auth/payment_subscription/webhook/'

/** The hosted checkout's side: records the signed cancellations it receives, or fails when told to. */
const provider = { cancellations: [] as { path: string; body: string; signature: string }[], failWith: null as number | null }
const providerServer = http.createServer((request, response) => {
  const chunks: Buffer[] = []
  request.on('data', (chunk: Buffer) => chunks.push(chunk))
  request.on('end', () => {
    if (provider.failWith) return void response.writeHead(provider.failWith).end()
    provider.cancellations.push({
      path: request.url!,
      body: Buffer.concat(chunks).toString(),
      signature: String(request.headers['payment-signature']),
    })
    response.writeHead(200).end('{}')
  })
})

let t: TestApp
let checkoutUrl: string

before(async () => {
  await new Promise<void>((resolve) => providerServer.listen(0, '127.0.0.1', resolve))
  checkoutUrl = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}/checkout`
  t = await createTestApp('tiny', { PAYMENT_WEBHOOK_SECRET: SECRET, PAYMENT_CHECKOUT_URL: checkoutUrl })
})
after(async () => {
  await t.close()
  await new Promise((resolve) => providerServer.close(resolve))
})

function sign(body: string, seconds = Math.floor(Date.now() / 1000), secret = SECRET) {
  return `t=${seconds},v1=${createHmac('sha256', secret).update(`${seconds}.${body}`).digest('hex')}`
}

/** Delivers an event as the provider does; `signature` overrides the header. */
function deliver(event: object, signature?: string | null) {
  const body = JSON.stringify(event)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  const header = signature === undefined ? sign(body) : signature
  if (header !== null) headers['payment-signature'] = header
  return t.request({ method: 'POST', url: WEBHOOK, headers, payload: body })
}

const event = (type: string, subscription: string, data: object = {}) => ({
  id: `evt_${randomUUID()}`,
  type,
  data: { subscription, ...data },
})

async function subscriber() {
  const user = await insertUser(t.database.db)
  const token = await t.tokenFor(user.id)
  const created = await t.send('POST', '/auth/payment_subscription/', { plan: 'supporter-monthly' }, token)
  assert.equal(created.statusCode, 201, created.body)
  const externalId = new URL(created.json().checkout_url).searchParams.get('subscription')!
  return { user, token, subscription: created.json(), externalId }
}

async function flag(userId: number) {
  const row = await t.database.db.selectFrom('users').select('is_payment_verified').where('id', '=', userId).executeTakeFirstOrThrow()
  return row.is_payment_verified
}

test('a new subscription is pending and answers the checkout page to pay at', async () => {
  const { token, subscription, externalId } = await subscriber()
  assert.deepEqual(Object.keys(subscription).sort(), ['checkout_url', 'created_at', 'current_period_end', 'id', 'plan', 'status'])
  assert.equal(subscription.status, 'pending')
  assert.equal(subscription.plan, 'supporter-monthly')
  assert.equal(subscription.current_period_end, null)
  assert.match(subscription.created_at, TIMESTAMP)
  const url = new URL(subscription.checkout_url)
  assert.equal(`${url.origin}${url.pathname}`, checkoutUrl)
  assert.equal(url.searchParams.get('plan'), 'supporter-monthly')
  assert.match(externalId, /^sub_[\w-]{24}$/)

  const current = await t.json('/auth/payment_subscription/', { authorization: `Token ${token}` })
  assert.deepEqual(current, { ...subscription, checkout_url: null })
  const list = await t.json('/auth/payment_subscription_list/', { authorization: `Token ${token}` })
  assert.deepEqual(Object.keys(list), ['count', 'next', 'previous', 'next_id', 'previous_id', 'results'])
  assert.equal(list.count, 1)
  assert.equal(list.results[0].id, subscription.id)
})

test('an unknown plan is 400 on plan and creates nothing', async () => {
  const user = await insertUser(t.database.db)
  const token = await t.tokenFor(user.id)
  for (const body of [{ plan: 'gold' }, {}, { plan: 12 }]) {
    const response = await t.send('POST', '/auth/payment_subscription/', body, token)
    assert.equal(response.statusCode, 400)
    assert.deepEqual(Object.keys(response.json()), ['plan'], JSON.stringify(body))
  }
  assert.equal((await t.get('/auth/payment_subscription/', { authorization: `Token ${token}` })).statusCode, 404)
})

test('activation verifies the payment: me, the public user and the score show it', async () => {
  const { user, token, externalId } = await subscriber()
  const before = await t.json(`/api/users/${user.id}/`)
  assert.equal(before.is_payment_verified, false)
  const periodEnd = '2031-05-01T00:00:00.000Z'
  const response = await deliver(event('subscription.activated', externalId, { current_period_end: periodEnd }))
  assert.equal(response.statusCode, 200, response.body)
  assert.equal((await t.json('/auth/me/', { authorization: `Token ${token}` })).is_payment_verified, true)
  const after = await t.json(`/api/users/${user.id}/`)
  assert.equal(after.is_payment_verified, true)
  assert.equal(after.verification_score, before.verification_score + 3)
  assert.equal(after.verification_count, before.verification_count + 1)
  const current = await t.json('/auth/payment_subscription/', { authorization: `Token ${token}` })
  assert.equal(current.status, 'active')
  assert.equal(current.current_period_end, periodEnd)
})

test('a replayed event id has no effect', async () => {
  const { user, externalId } = await subscriber()
  const activation = event('subscription.activated', externalId)
  assert.equal((await deliver(activation)).statusCode, 200)
  const replay = await deliver({ ...activation, type: 'subscription.canceled' })
  assert.equal(replay.statusCode, 200)
  assert.deepEqual(replay.json(), { detail: 'Event already received.' })
  assert.equal(await flag(user.id), true)
})

test('a bad or missing signature is 400 and changes nothing; the genuine delivery then applies', async () => {
  const { user, externalId } = await subscriber()
  const activation = event('subscription.activated', externalId)
  const body = JSON.stringify(activation)
  const forged = [sign(body, undefined, 'another-secret-of-enough-length-0123456789'), sign(`${body} `), 't=123', 'v1=abc', '', null]
  for (const signature of forged) {
    const response = await deliver(activation, signature)
    assert.equal(response.statusCode, 400, String(signature))
    assert.equal(typeof response.json().detail, 'string')
  }
  assert.equal(await flag(user.id), false)
  const recorded = await t.database.db
    .selectFrom('payment_webhook_events')
    .select('event_id')
    .where('event_id', '=', activation.id)
    .execute()
  assert.equal(recorded.length, 0, 'a refused delivery does not use up the event id')
  assert.equal((await deliver(activation)).statusCode, 200)
  assert.equal(await flag(user.id), true)
})

test('the signature covers the body exactly as sent, whitespace and all', async () => {
  const { user, externalId } = await subscriber()
  const body = `{ "type" : "subscription.activated",\n  "id": "evt_${randomUUID()}", "data": {"subscription": "${externalId}"} }\n`
  const response = await t.request({
    method: 'POST',
    url: WEBHOOK,
    headers: { 'content-type': 'application/json', 'payment-signature': sign(body) },
    payload: body,
  })
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(await flag(user.id), true)
})

test('a signature dated outside five minutes either way is refused as a replay', async () => {
  const { user, externalId } = await subscriber()
  const activation = event('subscription.activated', externalId)
  const body = JSON.stringify(activation)
  const now = Math.floor(Date.now() / 1000)
  // A minute past the window either way: the server's clock reads later than `now` by however long the requests take.
  for (const seconds of [now - 360, now + 360]) {
    const response = await deliver(activation, sign(body, seconds))
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { detail: 'The signature timestamp is outside the tolerance window.' })
  }
  assert.equal(await flag(user.id), false)
  assert.equal((await deliver(activation, sign(body, now - 250))).statusCode, 200, 'within the window')
})

test('past_due suspends the verification and renewed restores it with the new period end', async () => {
  const { user, token, externalId } = await subscriber()
  await deliver(event('subscription.activated', externalId))
  await deliver(event('subscription.past_due', externalId))
  assert.equal(await flag(user.id), false)
  await deliver(event('subscription.renewed', externalId, { current_period_end: 1_950_000_000 }))
  assert.equal(await flag(user.id), true)
  const current = await t.json('/auth/payment_subscription/', { authorization: `Token ${token}` })
  assert.equal(current.current_period_end, new Date(1_950_000_000_000).toISOString())
})

test('the provider canceling ends the verification for good, whatever arrives later', async () => {
  const { user, token, externalId } = await subscriber()
  await deliver(event('subscription.activated', externalId))
  await deliver(event('subscription.canceled', externalId))
  assert.equal(await flag(user.id), false)
  await deliver(event('subscription.renewed', externalId))
  assert.equal(await flag(user.id), false)
  assert.equal((await t.get('/auth/payment_subscription/', { authorization: `Token ${token}` })).statusCode, 404)
})

test('DELETE cancels at the provider, then here, and clears the flag', async () => {
  const { user, token, subscription, externalId } = await subscriber()
  await deliver(event('subscription.activated', externalId))
  const before = provider.cancellations.length
  const response = await t.send('DELETE', '/auth/payment_subscription/', undefined, token)
  assert.equal(response.statusCode, 200, response.body)
  assert.equal(response.json().id, subscription.id)
  assert.equal(response.json().status, 'canceled')
  assert.equal(await flag(user.id), false)
  assert.equal((await t.json(`/api/users/${user.id}/`)).is_payment_verified, false)
  const call = provider.cancellations[before]
  assert.equal(call.path, '/checkout/cancel')
  assert.deepEqual(JSON.parse(call.body), { subscription: externalId })
  assert.equal(
    call.signature,
    sign(call.body, Number(call.signature.slice(2, call.signature.indexOf(',')))),
    'signed with the webhook secret',
  )
  assert.equal((await t.send('DELETE', '/auth/payment_subscription/', undefined, token)).statusCode, 404)
  const list = await t.json('/auth/payment_subscription_list/', { authorization: `Token ${token}` })
  assert.equal(list.results[0].status, 'canceled')
})

test('an unreachable provider makes DELETE 503 and cancels nothing', async () => {
  const { user, token, externalId } = await subscriber()
  await deliver(event('subscription.activated', externalId))
  provider.failWith = 500
  try {
    const response = await t.send('DELETE', '/auth/payment_subscription/', undefined, token)
    assert.equal(response.statusCode, 503)
    assert.equal(typeof response.json().detail, 'string')
  } finally {
    provider.failWith = null
  }
  assert.equal(await flag(user.id), true)
  assert.equal((await t.json('/auth/payment_subscription/', { authorization: `Token ${token}` })).status, 'active')
})

test('one subscription at a time: an unfinished checkout is replaced, an active one must be canceled first', async () => {
  const { token, subscription, externalId } = await subscriber()
  const replacement = await t.send('POST', '/auth/payment_subscription/', { plan: 'supporter-yearly' }, token)
  assert.equal(replacement.statusCode, 201)
  assert.deepEqual(JSON.parse(provider.cancellations.at(-1)!.body), { subscription: externalId })
  const list = await t.json('/auth/payment_subscription_list/?page_size=1', { authorization: `Token ${token}` })
  assert.equal(list.count, 2)
  assert.equal(list.results[0].id, replacement.json().id, 'newest first')
  assert.equal(list.next_id, 2)
  const older = await t.json('/auth/payment_subscription_list/?page_size=1&page=2', { authorization: `Token ${token}` })
  assert.deepEqual([older.results[0].id, older.results[0].status], [subscription.id, 'canceled'])

  const newId = new URL(replacement.json().checkout_url).searchParams.get('subscription')!
  await deliver(event('subscription.activated', newId))
  const third = await t.send('POST', '/auth/payment_subscription/', { plan: 'supporter-monthly' }, token)
  assert.equal(third.statusCode, 400)
  assert.deepEqual(Object.keys(third.json()), ['non_field_errors'])
})

test('events for unknown subscriptions or of unknown types are recorded and ignored; malformed ones are 400', async () => {
  const { user, externalId } = await subscriber()
  for (const ignored of [event('subscription.activated', 'sub_nobody'), event('invoice.paid', externalId)]) {
    const response = await deliver(ignored)
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { detail: 'Event recorded and ignored.' })
  }
  assert.equal(await flag(user.id), false)
  const malformed = await deliver({
    id: '',
    type: 'subscription.activated',
    data: { subscription: externalId, current_period_end: 'soon' },
  })
  assert.equal(malformed.statusCode, 400)
  assert.deepEqual(Object.keys(malformed.json()).sort(), ['data.current_period_end', 'id'])
  const notJson = await t.request({
    method: 'POST',
    url: WEBHOOK,
    headers: { 'content-type': 'application/json', 'payment-signature': sign('{"id":') },
    payload: '{"id":',
  })
  assert.equal(notJson.statusCode, 400)
  assert.equal(await flag(user.id), false)
})

test('the subscription operations need a signed-in user; the webhook needs none', async () => {
  for (const [method, url] of [
    ['GET', '/auth/payment_subscription/'],
    ['POST', '/auth/payment_subscription/'],
    ['DELETE', '/auth/payment_subscription/'],
    ['GET', '/auth/payment_subscription_list/'],
  ] as const) {
    const response = await t.request({ method, url })
    assert.equal(response.statusCode, 403, `${method} ${url}`)
  }
})

test('without PAYMENT_WEBHOOK_SECRET payments answer 503 and the history stays readable', async () => {
  const off = await createTestApp('empty', { PAYMENT_CHECKOUT_URL: checkoutUrl })
  try {
    const user = await insertUser(off.database.db)
    const token = await off.tokenFor(user.id)
    await off.database.db
      .insertInto('payment_subscriptions')
      .values({ user_id: user.id, provider: 'hosted', external_id: 'sub_kept', plan: 'supporter-monthly', status: 'active' })
      .execute()
    const create = await off.send('POST', '/auth/payment_subscription/', { plan: 'supporter-monthly' }, token)
    assert.equal(create.statusCode, 503)
    assert.deepEqual(create.json(), { detail: 'Payments are not configured.' })
    assert.deepEqual((await off.send('DELETE', '/auth/payment_subscription/', undefined, token)).json(), {
      detail: 'Payments are not configured.',
    })
    const body = JSON.stringify(event('subscription.canceled', 'sub_kept'))
    const webhook = await off.request({
      method: 'POST',
      url: WEBHOOK,
      headers: { 'content-type': 'application/json', 'payment-signature': sign(body) },
      payload: body,
    })
    assert.equal(webhook.statusCode, 503)
    assert.equal((await off.json('/auth/payment_subscription/', { authorization: `Token ${token}` })).status, 'active')
    assert.equal((await off.json('/auth/payment_subscription_list/', { authorization: `Token ${token}` })).count, 1)
  } finally {
    await off.close()
  }
})
