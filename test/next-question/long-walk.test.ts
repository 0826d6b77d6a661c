import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { tagged } from './support.ts'

/**
 * The older web client's long walk: one GET /api/next_question/?limit_count=100 for a profile, a topic or a
 * collection, then "Thank you" once those are answered; so a profile with 85 questions must come in one page.
 */
let t: TestApp
const ids: Record<string, number> = {}
const tokens: Record<string, string> = {}
let asked: number[] = []
let answered: number[] = []
let topic: number[] = []

async function questions(db: Kysely<Database>, authorId: number, n: number, label: string): Promise<number[]> {
  const rows = await db
    .insertInto('questions')
    .values(Array.from({ length: n }, (_, i) => ({ user_id: authorId, question: `${label} ${i}`, slug: `${label}-${process.pid}-${i}` })))
    .returning('id')
    .execute()
  return rows.map((row) => row.id).sort((a, b) => a - b)
}

before(async () => {
  t = await createTestApp('empty')
  const db = t.database.db
  for (const name of ['author', 'asker', 'profile', 'walker']) {
    const user = await insertUser(db, { username: `${name}-${process.pid}` })
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  // The asker's profile: 85 questions they asked (user__id).
  asked = await questions(db, ids.asker, 85, 'Asked')
  // The profile's: 85 questions they answered in public (answered_by), among 90 (5 answered privately).
  const theirs = await questions(db, ids.author, 90, 'Answered')
  answered = theirs.slice(0, 85)
  await db
    .insertInto('question_votes')
    .values(theirs.map((question_id, i) => ({ question_id, user_id: ids.profile, value: 3, private: i >= 85 })))
    .execute()
  // A topic with more than 100 open questions.
  ids.tag = (await insertTag(db)).id
  topic = await questions(db, ids.author, 105, 'Topic')
  await tagged(db, ids.tag, topic)
})
after(() => t.close())

const as = (who: string) => ({ authorization: `Token ${tokens[who]}` })
const served = (body: { results: { id: number }[] }) => body.results.map((question) => question.id)

test('a profile of 85 asked questions comes whole in one limit_count=100 call, signed in and anonymously', async () => {
  for (const headers of [as('walker'), {}]) {
    const body = await t.json(`/api/next_question/?user__id=${ids.asker}&limit_count=100`, headers)
    assert.equal(body.returning, 85)
    assert.deepEqual(served(body), asked)
    assert.equal(body.count, 85)
    assert.equal(body.unanswered, 85)
  }
})

test('a profile of 85 answered questions comes whole in one call; the private answers stay out', async () => {
  const body = await t.json(`/api/next_question/?answered_by=${ids.profile}&limit_count=100`, as('walker'))
  assert.equal(body.returning, 85)
  assert.deepEqual(served(body), answered)
  assert.deepEqual([body.count, body.unanswered], [85, 85])
})

test('the questions the walker answered are left out of the long page and its counts', async () => {
  for (const id of asked.slice(0, 5)) {
    const vote = await t.send('POST', '/api/question_votes/', { object_id: id, value: 4 }, tokens.walker)
    assert.equal(vote.statusCode, 201, vote.body)
  }
  const body = await t.json(`/api/next_question/?user__id=${ids.asker}&limit_count=100`, as('walker'))
  assert.equal(body.returning, 80)
  assert.deepEqual(served(body), asked.slice(5))
  assert.deepEqual([body.count, body.unanswered], [85, 80])
})

test('next_question serves at most 100 (more is served as 100); next_question_light keeps its 30', async () => {
  const hundred = await t.json(`/api/next_question/?tags__tag=${ids.tag}&limit_count=100`, as('walker'))
  assert.equal(hundred.returning, 100)
  assert.deepEqual(served(hundred), topic.slice(0, 100))
  assert.deepEqual([hundred.count, hundred.unanswered], [105, 105])
  assert.deepEqual(await t.json(`/api/next_question/?tags__tag=${ids.tag}&limit_count=5000`, as('walker')), hundred)
  const refused = await t.get(`/api/next_question_light/?tags__tag=${ids.tag}&limit_count=100`)
  assert.equal(refused.statusCode, 400)
  assert.deepEqual(refused.json(), { limit_count: ['Ensure this value is less than or equal to 30.'] })
})

test('a page of 100 takes as many statements as a page of 1', async () => {
  for (const [query, returning] of [
    [`answered_by=${ids.profile}`, 85],
    [`tags__tag=${ids.tag}`, 100],
    ['', 100],
  ] as const) {
    // The first request of a kept walk reads the walk itself (src/modules/next-question/kept-walks.ts).
    await t.get(`/api/next_question/?${query}&limit_count=2`, as('walker'))
    const one = await t.get(`/api/next_question/?${query}&limit_count=1`, as('walker'))
    const many = await t.get(`/api/next_question/?${query}&limit_count=100`, as('walker'))
    assert.equal(many.json().returning, returning, query)
    assert.equal(one.headers['x-query-count'], many.headers['x-query-count'], query)
  }
})
