import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { assertStoredEqualsRecomputed } from './stored-counters.ts'

/**
 * Retagging, rating and deleting while people answer: every writer locks the question first, then users,
 * then tags in id order, so nothing deadlocks and every counter ends equal to a recomputation. On PGlite
 * (one session) the requests run one after another; on PostgreSQL they really overlap.
 */
let t: TestApp
before(async () => {
  t = await createTestApp('tiny', { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' })
})
after(() => t.close())

test('answers, retagging and question writes at once keep every counter exact', async () => {
  const db = t.database.db
  const author = await insertUser(db)
  const authorToken = await t.tokenFor(author.id)
  const tags = await Promise.all(['one', 'two', 'three', 'four'].map((name) => insertTag(db, `Concurrent ${name}`)))
  const tagRef = (i: number) => ({ tag: { id: tags[i].id } })
  const ask = async (question: string, tagIndexes: number[]) => {
    const response = await t.send('POST', '/api/questions/', { question, tags: tagIndexes.map(tagRef) }, authorToken)
    assert.equal(response.statusCode, 201, response.body)
    return response.json().id as number
  }
  const first = await ask('First busy question', [0, 1])
  const second = await ask('Second busy question', [2, 3])
  const voters = await Promise.all(Array.from({ length: 16 }, async () => t.tokenFor((await insertUser(db)).id)))
  const doomed = [] as number[]
  for (let i = 0; i < 4; i++) doomed.push(await ask(`Doomed question ${i}`, [i, (i + 1) % 4]))

  const work: Promise<{ statusCode: number; body: string }>[] = []
  voters.forEach((token, i) => {
    for (const question of [first, second])
      work.push(t.send('POST', '/api/question_votes/', { object_id: question, value: (i % 5) + 1 }, token))
  })
  for (let i = 0; i < 6; i++) {
    work.push(t.send('PATCH', `/api/questions/${first}/`, { tags: [tagRef((i + 3) % 4), tagRef(i % 4)] }, authorToken))
    work.push(t.send('PATCH', `/api/questions/${second}/`, { tags: [tagRef(i % 4), tagRef((i + 1) % 4)] }, authorToken))
    work.push(t.send('POST', '/api/questions/', { question: `Passing question ${i}`, tags: [tagRef(i % 4)] }, authorToken))
  }
  for (const id of doomed) work.push(t.send('DELETE', `/api/questions/${id}/`, undefined, authorToken))
  voters.forEach((token, i) => work.push(t.send('POST', '/api/question_votes/', { object_id: first, value: ((i + 2) % 5) + 1 }, token)))
  const responses = await Promise.all(work)
  const failures = responses.flatMap((r, i) => (r.statusCode >= 300 ? [`#${i} ${r.statusCode} ${r.body.slice(0, 100)}`] : []))
  assert.deepEqual(failures, [])
  await assertStoredEqualsRecomputed(db)
})
