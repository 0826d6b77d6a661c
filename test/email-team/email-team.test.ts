import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { startSmtpServer, type Inbox } from '../helpers/smtp.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

const TEAM = 'team@civic.example'
let t: TestApp
let inbox: Inbox
let member: { id: number; token: string }
let staffToken: string

before(async () => {
  inbox = await startSmtpServer()
  t = await createTestApp('tiny', { SMTP_URL: inbox.url, TEAM_EMAIL: TEAM, RATE_LIMIT_SENSITIVE: '12' })
  const row = await insertUser(t.database.db, { username: 'writer', email: 'writer@example.net' })
  member = { id: row.id, token: await t.tokenFor(row.id) }
  staffToken = await t.tokenFor((await insertUser(t.database.db, { is_staff: true })).id)
})
after(async () => {
  await t.close()
  await inbox.close()
})

const count = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('team_messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

test('a message from someone signed out is kept and reaches the team address', async () => {
  const response = await t.send('POST', '/api/email_team/', {
    subject: 'Broken chart',
    body: 'The chart on /q/12 is empty.',
    email: 'reader@example.org',
  })
  assert.equal(response.statusCode, 201, response.body)
  const message = response.json()
  assert.deepEqual(Object.keys(message).sort(), ['body', 'created_at', 'email', 'id', 'sent_at', 'subject', 'user'])
  assert.equal(message.user, null)
  assert.equal(message.email, 'reader@example.org')
  assert.match(message.sent_at, TIMESTAMP)
  const mail = await inbox.take(TEAM, /chart on \/q\/12/)
  assert.equal(mail.subject, '[team] Broken chart')
  assert.match(mail.text, /From: reader@example\.org/)
})

test("signed in, the account's address is the reply address and the account is recorded", async () => {
  const response = await t.send('POST', '/api/email_team/', { body: 'Thanks for the app' }, member.token)
  assert.equal(response.statusCode, 201, response.body)
  const message = response.json()
  assert.equal(message.user, member.id)
  assert.equal(message.email, 'writer@example.net')
  assert.equal(message.subject, 'Message from writer@example.net')
  const mail = await inbox.take(TEAM, /Thanks for the app/)
  assert.match(mail.text, /From: writer <writer@example\.net>/)
})

test('bad messages name their field and keep nothing', async () => {
  const before = await count()
  for (const [body, field] of [
    [{ email: 'reader@example.org' }, 'body'],
    [{ body: '   ', email: 'reader@example.org' }, 'body'],
    [{ body: 'hello' }, 'email'],
    [{ body: 'hello', email: 'not an address' }, 'email'],
    [{ body: 'x'.repeat(10001), email: 'reader@example.org' }, 'body'],
    [{ body: 'hello', email: 'reader@example.org', subject: 's'.repeat(201) }, 'subject'],
  ] as const) {
    const response = await t.send('POST', '/api/email_team/', body)
    assert.equal(response.statusCode, 400, JSON.stringify(body))
    assert.ok(field in response.json(), `${JSON.stringify(body)}: ${response.body}`)
  }
  assert.equal(await count(), before)
})

test('only staff read the messages, newest first', async () => {
  assert.equal((await t.get('/api/email_team/')).statusCode, 403)
  assert.equal((await t.get('/api/email_team/', { authorization: `Token ${member.token}` })).statusCode, 403)
  const response = await t.get('/api/email_team/', { authorization: `Token ${staffToken}` })
  assert.equal(response.statusCode, 200, response.body)
  const page = response.json()
  assert.equal(page.count, await count())
  const ids = page.results.map((message: { id: number }) => message.id)
  assert.deepEqual(
    ids,
    [...ids].sort((a, b) => b - a),
  )
})

test('writing to the team is rate limited like other mail: past the limit, 429 and nothing kept', async () => {
  let refused = 0
  for (let i = 0; i < 6; i++) {
    const response = await t.send('POST', '/api/email_team/', { body: `note ${i}` }, member.token)
    if (response.statusCode === 429) refused++
    else assert.equal(response.statusCode, 201, response.body)
  }
  assert.ok(refused >= 1, 'the messages past twelve a minute from one address are refused')
  const kept = await t.database.db.selectFrom('team_messages').select('body').where('body', 'like', 'note %').execute()
  assert.equal(kept.length, 6 - refused)
})
