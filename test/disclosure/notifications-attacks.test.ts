import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'

/**
 * Notifications, attacked as an observer would use them: a delegator watching their inbox (and their phone and
 * mail) to learn that their delegate answered privately; a new account putting its collection's name in front of
 * strangers who answered a popular question.
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}

const send = async (who: string, method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => {
  const response = await t.send(method, url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
  return response.statusCode === 204 ? null : response.json()
}
const inbox = async (who: string, kind: string) =>
  (await t.json(`/api/notifications/?kind=${kind}`, { authorization: `Token ${people[who].token}` })).count as number
/** Every notification row written for a person, whatever its channels: in app, queued for e-mail, or for push. */
const written = async (who: string, kind?: string) => {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM notifications
    WHERE user_id = ${people[who].id} AND (${kind ?? null}::text IS NULL OR kind = ${kind ?? null})`.execute(t.database.db)
  return Number(rows[0].n)
}
const ask = async (who: string, question: string, extra: Record<string, unknown> = {}) =>
  (await send(who, 'POST', '/api/questions/', { question, ...extra })).id as number

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['delegate', 'ben', 'dan', 'author', 'ann', 'bob', 'cat', 'mallory']) {
    const row = await insertUser(t.database.db, { username: `na_${name}` })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
})
after(() => t.close())

describe('a private answer notifies no delegator', () => {
  let tag: number
  before(async () => {
    tag = (await insertTag(t.database.db)).id
    for (const delegator of ['ben', 'dan']) {
      await send(delegator, 'POST', '/api/tag_delegations/', { tag, trustee: people.delegate.id })
      // Everything on every channel: nothing a private answer does may reach the phone or the mail either.
      const every = { in_app: true, email: true, push: true }
      await send(delegator, 'PATCH', '/api/notification_settings/', {
        kinds: { delegate_answered: every, delegate_withdrew: every },
        digest: 'daily',
      })
    }
  })

  test('casting, editing, going public and private, withdrawing: nothing for the delegators', async () => {
    const question = await ask('author', 'Should the pool stay open in winter?', { tags: [{ tag: { id: tag } }] })
    const before = await written('ben')
    const vote = await send('delegate', 'POST', '/api/question_votes/', { object_id: question, value: 5, private: true })
    await send('delegate', 'PATCH', `/api/question_votes/${vote.id}/`, { value: 1 })
    await send('delegate', 'PATCH', `/api/question_votes/${vote.id}/`, { private: false })
    await send('delegate', 'PATCH', `/api/question_votes/${vote.id}/`, { private: true })
    await send('delegate', 'DELETE', `/api/question_votes/${vote.id}/`)
    assert.equal(await written('ben'), before, 'no row: nothing in app, nothing queued for e-mail or push')
    assert.equal(await inbox('ben', 'delegate_answered,delegate_withdrew'), 0)
  })

  test('the same with a private pick', async () => {
    const question = await ask('author', 'Which day should the market be on?', {
      subtype: 'mcq',
      choices: [{ text: 'Friday' }, { text: 'Saturday' }],
      tags: [{ tag: { id: tag } }],
    })
    const choice = (await t.json(`/api/questions/${question}/`)).choices[0].id
    const before = await written('dan')
    const vote = await send('delegate', 'POST', '/api/question_choice_votes/', { object_id: choice, value: 5, private: true })
    await send('delegate', 'PATCH', `/api/question_choice_votes/${vote.id}/`, { private: false })
    await send('delegate', 'PATCH', `/api/question_choice_votes/${vote.id}/`, { private: true })
    await send('delegate', 'DELETE', `/api/question_choice_votes/${vote.id}/`)
    assert.equal(await written('dan'), before)
  })

  test('a public answer still tells them, on the channels they chose', async () => {
    const question = await ask('author', 'Should the library lend tools?', { tags: [{ tag: { id: tag } }] })
    const vote = await send('delegate', 'POST', '/api/question_votes/', { object_id: question, value: 4, private: false })
    await send('delegate', 'DELETE', `/api/question_votes/${vote.id}/`)
    const { rows } = await sql<{ kind: string; in_app: boolean; email: boolean; push: boolean }>`
      SELECT kind, in_app, email, push FROM notifications WHERE user_id = ${people.ben.id} ORDER BY id`.execute(t.database.db)
    assert.deepEqual(rows, [
      { kind: 'delegate_answered', in_app: true, email: true, push: true },
      { kind: 'delegate_withdrew', in_app: true, email: true, push: true },
    ])
  })
})

describe('collection_gained_questions reaches those who answered the collection, once a day', () => {
  const grew = (who: string) => written(who, 'collection_gained_questions')
  const add = (who: string, collection: number, question: number) =>
    send(who, 'POST', '/api/question_collection_items/', { parent: collection, object_id: question, type: 'Q' })

  test('strangers who answered its question elsewhere get nothing; its answerers get one a day', async () => {
    const popular = await ask('author', 'Should the river path be lit at night?')
    const collection = (await send('author', 'POST', '/api/question_collections/', { name: 'Riverside' })).id
    await add('author', collection, popular)
    await send('ann', 'POST', '/api/question_votes/', { object_id: popular, value: 3, collection })
    // bob answered privately through the collection: he hears of it himself, nobody else learns anything.
    await send('bob', 'POST', '/api/question_votes/', { object_id: popular, value: 2, collection, private: true })
    await send('cat', 'POST', '/api/question_votes/', { object_id: popular, value: 5 })

    await add('author', collection, await ask('author', 'Should the quay get benches?'))
    assert.equal(await grew('ann'), 1)
    assert.equal(await grew('bob'), 1)
    assert.equal(await grew('cat'), 0, 'answered the question, not the collection')
    await add('author', collection, await ask('author', 'Should boats moor for free?'))
    await ask('author', 'Should the ferry run hourly?', { collections: [{ parent: { id: collection } }] })
    assert.equal(await grew('ann'), 1, 'at most one a day per collection')

    // A day later, another.
    await sql`UPDATE notifications SET created_at = created_at - interval '25 hours'
      WHERE kind = 'collection_gained_questions' AND user_id = ${people.ann.id}`.execute(t.database.db)
    await add('author', collection, await ask('author', 'Should the towpath be paved?'))
    assert.equal(await grew('ann'), 2)
    assert.equal(await grew('bob'), 1, 'still within his day')
    assert.equal(await inbox('ann', 'collection_gained_questions'), 2)
  })

  test('a new account cannot reach strangers with a name of its choosing', async () => {
    const popular = await ask('author', 'Should the square host a weekly market?')
    for (const who of ['ann', 'bob', 'cat']) await send(who, 'POST', '/api/question_votes/', { object_id: popular, value: 4 })
    const spam = (await send('mallory', 'POST', '/api/question_collections/', { name: 'WIN A PRIZE at example.org' })).id
    await add('mallory', spam, popular)
    await add('mallory', spam, await ask('mallory', 'Anything at all?'))
    await ask('mallory', 'Anything else?', { collections: [{ parent: { id: spam } }] })
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM notifications
      WHERE kind = 'collection_gained_questions' AND payload ->> 'collection' = ${String(spam)}`.execute(t.database.db)
    assert.equal(Number(rows[0].n), 0)
    for (const who of ['ann', 'bob', 'cat']) {
      const page = await t.json(`/api/notifications/`, { authorization: `Token ${people[who].token}` })
      assert.ok(!JSON.stringify(page).includes('WIN A PRIZE'), `${who} never reads the name`)
    }
  })
})
