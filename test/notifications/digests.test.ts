import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { connectDatabase } from '../../src/db/connect.ts'
import { sendDigests } from '../../src/engines/notifications/digests.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { CLI_SCRIPT } from '../helpers/cli/command.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { scratchDatabase } from '../helpers/scratch.ts'
import { startSmtpServer, type Inbox } from '../helpers/smtp.ts'

let t: TestApp
let inbox: Inbox
before(async () => {
  inbox = await startSmtpServer()
  t = await createTestApp('tiny', { SMTP_URL: inbox.url })
})
after(async () => {
  await t.close()
  await inbox.close()
})

const digests = () => sendDigests(t.database.db, t.app.mailer, { base: 'https://civic.example' })
let serial = 0
async function reader(digest?: 'daily' | 'weekly' | 'never') {
  const name = `digest_${++serial}`
  const user = await insertUser(t.database.db, { username: name, email: `${name}@example.net` })
  if (digest) await t.send('PATCH', '/api/notification_settings/', { digest }, await t.tokenFor(user.id))
  return user
}
const notify = (userId: number, message: string, email = true) =>
  t.database.db
    .insertInto('notifications')
    .values({ user_id: userId, kind: 'comment_reply', message, url: '/api/comments/1/', email })
    .execute()
const lastDigestAt = async (userId: number, when: Date) =>
  t.database.db
    .insertInto('notification_settings')
    .values({ user_id: userId, last_digest_at: when })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_digest_at: when }))
    .execute()

describe('digests', () => {
  test('one mail a user, listing exactly their unmailed e-mail notifications; a second run sends nothing', async () => {
    const user = await reader()
    await notify(user.id, 'Ann replied to your comment')
    await notify(user.id, 'Ben replied to your comment')
    await notify(user.id, 'Not for e-mail', false)
    const first = await digests()
    assert.ok(first.digests >= 1)
    const mail = await inbox.take(user.email!, /replied/)
    assert.equal(mail.subject, 'Your weekly Civic Survey digest: 2 new notifications')
    assert.match(mail.text, /- Ann replied to your comment\r?\n {2}https:\/\/civic\.example\/api\/comments\/1\//)
    assert.match(mail.text, /- Ben replied to your comment/)
    assert.doesNotMatch(mail.text, /Not for e-mail/)
    assert.deepEqual(await digests(), { digests: 0, notifications: 0 })
    assert.deepEqual(inbox.waiting(user.email!), [])
  })

  test('weekly waits a week since the last digest, daily a day; never sends none and clears the queue', async () => {
    const weekly = await reader('weekly')
    const daily = await reader('daily')
    const never = await reader('never')
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000)
    await lastDigestAt(weekly.id, threeDaysAgo)
    await lastDigestAt(daily.id, threeDaysAgo)
    for (const user of [weekly, daily, never]) await notify(user.id, `news for ${user.username}`)
    await digests()
    assert.match((await inbox.take(daily.email!)).subject, /^Your daily Civic Survey digest: 1 new notification$/)
    assert.deepEqual(inbox.waiting(weekly.email!), [])
    assert.deepEqual(inbox.waiting(never.email!), [])
    const left = await t.database.db
      .selectFrom('notifications')
      .select(['user_id', 'emailed_at'])
      .where('user_id', 'in', [weekly.id, never.id])
      .execute()
    assert.deepEqual(
      left.map((row) => [row.user_id, row.emailed_at === null]).sort(),
      [
        [never.id, false],
        [weekly.id, true],
      ].sort(),
    )
    // A week on, the weekly one is due.
    await lastDigestAt(weekly.id, new Date(Date.now() - 7 * 86_400_000))
    await digests()
    assert.match((await inbox.take(weekly.email!)).text, new RegExp(`news for ${weekly.username}`))
  })

  test('no address or a closed account: nothing is sent and nothing piles up', async () => {
    const silent = await insertUser(t.database.db, { email: null })
    const closed = await reader()
    await t.database.db.updateTable('users').set({ is_active: false }).where('id', '=', closed.id).execute()
    await notify(silent.id, 'to nobody')
    await notify(closed.id, 'to a closed account')
    await digests()
    const rows = await t.database.db
      .selectFrom('notifications')
      .select('emailed_at')
      .where('user_id', 'in', [silent.id, closed.id])
      .execute()
    assert.ok(rows.every((row) => row.emailed_at !== null))
    assert.deepEqual(inbox.waiting(closed.email!), [])
  })

  test('two runs at once send each digest once', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => reader()))
    for (const user of users) await notify(user.id, `once for ${user.username}`)
    const [a, b] = await Promise.all([digests(), digests()])
    assert.equal(a.digests + b.digests, users.length)
    for (const user of users) {
      await inbox.take(user.email!, /once for/)
      assert.deepEqual(inbox.waiting(user.email!), [])
    }
  })
})

test('civic-survey send-digests runs from cron: mails what is due, then nothing', async () => {
  const scratch = await scratchDatabase()
  // Asynchronous, so that the in-process SMTP server can answer the child.
  const run = (args: string[]) =>
    new Promise<{ status: number; stderr: string }>((resolve) => {
      const env = { ...process.env, LOG_LEVEL: 'warn', SMTP_URL: inbox.url, PUBLIC_URL: 'https://civic.example', ...scratch.env }
      execFile(process.execPath, [CLI_SCRIPT, ...args], { env, encoding: 'utf8', timeout: 120_000 }, (error, _stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stderr }),
      )
    })
  try {
    assert.equal((await run(['migrate'])).status, 0)
    const handle = await connectDatabase({ databaseUrl: scratch.env.DATABASE_URL || null, dataDir: scratch.env.DATA_DIR ?? '' })
    const user = await handle.db
      .insertInto('users')
      .values({ username: 'cron_reader', email: 'cron@example.net' })
      .returning('id')
      .executeTakeFirstOrThrow()
    await handle.db
      .insertInto('notifications')
      .values({ user_id: user.id, kind: 'friend_request', message: 'Cat asked to be your friend', url: '/api/friends/9/', email: true })
      .execute()
    await handle.close()
    const first = await run(['send-digests'])
    assert.equal(first.status, 0, first.stderr)
    assert.match(first.stderr, /^1 digests sent, listing 1 notifications$/m)
    const mail = await inbox.take('cron@example.net')
    assert.match(mail.text, /Cat asked to be your friend\r?\n {2}https:\/\/civic\.example\/api\/friends\/9\//)
    const again = await run(['send-digests'])
    assert.match(again.stderr, /^0 digests sent, listing 0 notifications$/m)
  } finally {
    await scratch.cleanup()
  }
})
