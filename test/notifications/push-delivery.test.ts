import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { startApnsStandIn } from '../helpers/apns-standin.ts'
import { startFcmStandIn } from '../helpers/fcm-standin.ts'
import { NOTIFICATION_KINDS } from '../../src/engines/notifications/notification-kinds.ts'
import { deliverDuePushes } from '../../src/engines/notifications/push-delivery.ts'
import type { PushSender } from '../../src/push/push-sender.ts'
import { renderMetrics } from '../../src/core/metrics.ts'
import { parseMetrics } from '../helpers/metrics.ts'

let t: TestApp
let fcm: Awaited<ReturnType<typeof startFcmStandIn>>
let apns: Awaited<ReturnType<typeof startApnsStandIn>>

const fcmToken = () => `${randomBytes(16).toString('base64url').slice(0, 22)}:APA91b${randomBytes(90).toString('base64url').slice(0, 90)}`
const apnsToken = () => randomBytes(32).toString('hex')

async function person(name: string) {
  const user = await insertUser(t.database.db, { username: `push_${name}_${randomBytes(3).toString('hex')}` })
  return { ...user, token: await t.tokenFor(user.id) }
}
async function phones(owner: { token: string }) {
  const android = fcmToken()
  const iphone = apnsToken()
  assert.equal(
    (await t.send('POST', '/api-push/device/gcm/', { name: `android_${android}`, registration_id: android, active: true }, owner.token))
      .statusCode,
    201,
  )
  assert.equal(
    (await t.send('POST', '/api-push/device/apns/', { active: '1', registration_id: iphone, name: `ios_${iphone}` }, owner.token))
      .statusCode,
    201,
  )
  return { android, iphone }
}
/** Waits for a condition the deliverer makes true, within the time a person would wait. */
async function eventually<T>(read: () => T | undefined, what: string, ms = 5000): Promise<T> {
  const until = Date.now() + ms
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > until) assert.fail(`${what} did not happen within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
const dueRows = (userId: number) =>
  t.database.db.selectFrom('notifications').select(['id', 'pushed_at']).where('user_id', '=', userId).where('push', '=', true).execute()

/** The user's pushed notifications once none is left due (the deliverer marks them after sending). */
async function settled(userId: number) {
  const until = Date.now() + 5000
  for (;;) {
    const rows = await dueRows(userId)
    if (rows.every((row) => row.pushed_at) || Date.now() > until) return rows
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

before(async () => {
  fcm = await startFcmStandIn()
  apns = await startApnsStandIn()
  const keyFile = path.join(apns.folder, 'AuthKey.p8')
  writeFileSync(keyFile, apns.signingKey)
  const accountFile = path.join(apns.folder, 'service-account.json')
  writeFileSync(accountFile, JSON.stringify(fcm.serviceAccount))
  t = await createTestApp('tiny', {
    PUSH_DELIVERY: 'on',
    FCM_ENDPOINT: fcm.endpoint,
    FCM_SERVICE_ACCOUNT_FILE: accountFile,
    APNS_ENDPOINT: apns.endpoint,
    APNS_KEY_FILE: keyFile,
    APNS_KEY_ID: apns.keyId,
    APNS_TEAM_ID: apns.teamId,
    APNS_TOPIC: apns.topic,
    APNS_CA_FILE: apns.caFile,
    // Metrics recorded (the app never binds their port: serve does), so the deliveries' count can be read.
    METRICS_PORT: '9464',
  })
})
after(async () => {
  await t.close()
  await Promise.all([fcm.close(), apns.close()])
})

describe('an event pushes to the recipient’s phones, through FCM and APNs', () => {
  test('a friend request reaches an Android and an iPhone with what each app reads', async () => {
    const [asker, asked] = [await person('asker'), await person('asked')]
    const { android, iphone } = await phones(asked)
    const friendship = (await t.send('POST', '/api/friends/', { friend: asked.id }, asker.token)).json()
    const toAndroid = await eventually(() => fcm.received.find((message) => message.token === android), 'the FCM push')
    assert.equal(toAndroid.data.message, 'Test Person asked to be your friend')
    assert.equal(toAndroid.data.url, `/api/friends/${friendship.id}/`)
    assert.deepEqual(JSON.parse(toAndroid.data.actor), { id: asker.id, username: asker.username, name: 'Test Person' })
    assert.equal(toAndroid.notification?.body, toAndroid.data.message)
    const toIphone = await eventually(() => apns.received.find((push) => push.token === iphone), 'the APNs push')
    assert.equal(toIphone.topic, apns.topic)
    assert.equal(toIphone.pushType, 'alert')
    assert.equal(toIphone.payload.aps.alert.body, toAndroid.data.message)
    assert.equal(toIphone.payload.url, `/api/friends/${friendship.id}/`)
    const rows = await settled(asked.id)
    assert.equal(rows.length, 1)
    assert.ok(rows[0].pushed_at, 'marked pushed')
    // One access token serves every push until it nears its end.
    assert.equal(fcm.state.tokenRequests, 1)
  })

  test('every kind with push chosen reaches both providers', async () => {
    const [actor, recipient] = [await person('actor'), await person('recipient')]
    const { android, iphone } = await phones(recipient)
    await t.database.db
      .insertInto('notifications')
      .values(
        NOTIFICATION_KINDS.map((kind) => ({
          user_id: recipient.id,
          actor_id: actor.id,
          kind,
          message: `about ${kind}`,
          url: '/api/',
          push: true,
        })),
      )
      .execute()
    for (const kind of NOTIFICATION_KINDS) {
      await eventually(() => fcm.received.find((m) => m.token === android && m.data.message === `about ${kind}`), `${kind} by FCM`)
      await eventually(
        () => apns.received.find((p) => p.token === iphone && p.payload.aps.alert.body === `about ${kind}`),
        `${kind} by APNs`,
      )
    }
  })

  test('a notification without push chosen is never pushed', async () => {
    const [actor, recipient] = [await person('quiet'), await person('muted')]
    const { android } = await phones(recipient)
    await t.send('PATCH', '/api/notification_settings/', { kinds: { friend_request: { push: false } } }, recipient.token)
    await t.send('POST', '/api/friends/', { friend: recipient.id }, actor.token)
    // A pushed notification for someone else, written after it, arrives: the quiet one would have gone first.
    const [other, witness] = [await person('other'), await person('witness')]
    const { android: witnessPhone } = await phones(witness)
    await t.send('POST', '/api/friends/', { friend: witness.id }, other.token)
    await eventually(() => fcm.received.find((m) => m.token === witnessPhone), 'the witness push')
    assert.equal(fcm.received.filter((m) => m.token === android).length, 0)
  })
})

describe('devices that are gone, providers that fail, deliverers that race', () => {
  test('a device the provider reports gone is deactivated and not tried again', async () => {
    const [actor, recipient] = [await person('a'), await person('b')]
    const { android, iphone } = await phones(recipient)
    fcm.gone.add(android)
    apns.gone.add(iphone)
    await t.send('POST', '/api/friends/', { friend: recipient.id }, actor.token)
    const devices = () =>
      t.database.db
        .selectFrom('push_devices')
        .select(['registration_id', 'active'])
        .where('user_id', '=', recipient.id)
        .orderBy('id')
        .execute()
    const until = Date.now() + 5000
    while ((await devices()).some((device) => device.active) && Date.now() < until) await new Promise((r) => setTimeout(r, 25))
    assert.deepEqual(await devices(), [
      { registration_id: android, active: false },
      { registration_id: iphone, active: false },
    ])
    assert.ok((await dueRows(recipient.id))[0].pushed_at, 'nothing left to retry')
    fcm.gone.delete(android)
    const before = fcm.received.length
    await t.database.db
      .insertInto('notifications')
      .values({ user_id: recipient.id, kind: 'friend_request', message: 'again', push: true })
      .execute()
    await settled(recipient.id)
    const report = await deliverDuePushes(t.database.db, t.app.push)
    assert.equal(report.sent + report.gone + report.retry, 0, 'no active device left to try')
    assert.equal(fcm.received.length, before)
  })

  test('a provider outage leaves the push due; the next run delivers it', async () => {
    const recipient = await person('patient')
    const { android } = await phones(recipient)
    fcm.state.failing = true
    apns.state.failing = true
    try {
      // Written by the database alone (no event), then delivered by hand: the deliverer's own runs may race it.
      await t.database.db
        .insertInto('notifications')
        .values({ user_id: recipient.id, kind: 'group_invite', message: 'later', push: true })
        .execute()
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal((await dueRows(recipient.id))[0].pushed_at, null)
    } finally {
      fcm.state.failing = false
      apns.state.failing = false
    }
    await deliverDuePushes(t.database.db, t.app.push)
    await eventually(() => fcm.received.find((m) => m.token === android && m.data.message === 'later'), 'the retried push')
    assert.ok((await dueRows(recipient.id))[0].pushed_at)
  })

  test('two deliverers at once push each notification once', async () => {
    const recipient = await person('raced')
    const device = fcmToken()
    await t.database.db.insertInto('push_devices').values({ user_id: recipient.id, kind: 'gcm', registration_id: device }).execute()
    const sent: string[] = []
    const recording: PushSender = {
      async send(_device, notification) {
        sent.push(notification.message)
        await new Promise((resolve) => setTimeout(resolve, 2))
        return 'sent'
      },
      async close() {},
    }
    // The service's own deliverer only fails meanwhile: what is pushed here is pushed by the racers.
    fcm.state.failing = true
    const messages = Array.from({ length: 150 }, (_, i) => `race ${i}`)
    await t.database.db
      .insertInto('notifications')
      .values(messages.map((message) => ({ user_id: recipient.id, kind: 'comment_reply', message, push: true })))
      .execute()
    await Promise.all([
      deliverDuePushes(t.database.db, recording),
      deliverDuePushes(t.database.db, recording),
      deliverDuePushes(t.database.db, recording),
    ])
    // Rows the service's deliverer held meanwhile (its provider failing, it leaves them due) are taken next.
    const until = Date.now() + 10_000
    while ((await dueRows(recipient.id)).some((row) => !row.pushed_at) && Date.now() < until)
      await deliverDuePushes(t.database.db, recording)
    fcm.state.failing = false
    const ours = sent.filter((message) => message.startsWith('race '))
    assert.deepEqual([...ours].sort(), [...messages].sort(), 'each once')
  })
})

describe('the deliveries in the metrics', () => {
  test('each push is counted by channel and outcome (civic_notification_deliveries_total)', async () => {
    const read = async () => parseMetrics((await renderMetrics()).body)
    const [actor, recipient] = [await person('counted'), await person('counting')]
    const { android, iphone } = await phones(recipient)
    fcm.gone.add(android)
    const before = await read()
    await t.send('POST', '/api/friends/', { friend: recipient.id }, actor.token)
    await eventually(() => apns.received.find((push) => push.token === iphone), 'the APNs push')
    await settled(recipient.id)
    const after = await read()
    const delta = (channel: string, outcome: string) =>
      after.sum('civic_notification_deliveries_total', { channel, outcome }) -
      before.sum('civic_notification_deliveries_total', { channel, outcome })
    assert.deepEqual(
      {
        fcmGone: delta('fcm', 'gone'),
        fcmSent: delta('fcm', 'sent'),
        apnsSent: delta('apns', 'sent'),
        retries: delta('fcm', 'retry') + delta('apns', 'retry'),
      },
      { fcmGone: 1, fcmSent: 0, apnsSent: 1, retries: 0 },
    )
    fcm.gone.delete(android)
  })
})
