import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'

let t: TestApp
const ids: Record<string, number> = {}
const auth: Record<string, Record<string, string>> = {}
const names: Record<string, string> = {}

/**
 * Answer times (minutes past noon), likert unless said:
 *   q1: alice 10, bob 50          latest 50
 *   q2: alice 30, bob 20          latest 30
 *   qc: alice 20, carol 60 (choices) latest 60
 *   q3: bob 40                    latest 40
 *   q4: alice 5 (private), bob 35 latest 35
 *   none: never answered
 */
before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['alice', 'bob', 'carol', 'staff']) {
    const user = await insertUser(db, name === 'staff' ? { is_staff: true } : {})
    ids[name] = user.id
    names[name] = user.username
    auth[name] = { authorization: `Token ${await t.tokenFor(user.id)}` }
  }
  for (const name of ['q1', 'q2', 'q3', 'q4', 'none'])
    ids[name] = (await insertQuestion(db, ids.carol, { question: `Ordering ${name}` })).id
  ids.qc = (await insertQuestion(db, ids.carol, { question: 'Ordering qc', subtype: 'mcq' })).id
  const [left, right] = await db
    .insertInto('question_choices')
    .values([
      { question_id: ids.qc, text: 'Left', store_number: 0 },
      { question_id: ids.qc, text: 'Right', store_number: 1 },
    ])
    .returning('id')
    .execute()
  const at = (minutes: number) => new Date(Date.UTC(2025, 0, 1, 12, minutes))
  const likert = (question: string, user: string, minutes: number, isPrivate = false) => ({
    question_id: ids[question],
    user_id: ids[user],
    value: 3,
    private: isPrivate,
    created_at: at(minutes),
    modified_at: at(minutes),
  })
  await db
    .insertInto('question_votes')
    .values([
      likert('q1', 'alice', 10),
      likert('q1', 'bob', 50),
      likert('q2', 'alice', 30),
      likert('q2', 'bob', 20),
      likert('q3', 'bob', 40),
      likert('q4', 'alice', 5, true),
      likert('q4', 'bob', 35),
    ])
    .execute()
  await db
    .insertInto('question_choice_votes')
    .values([
      { question_id: ids.qc, choice_id: left.id, user_id: ids.alice, value: 5, created_at: at(20), modified_at: at(20) },
      { question_id: ids.qc, choice_id: right.id, user_id: ids.carol, value: 5, created_at: at(60), modified_at: at(60) },
    ])
    .execute()
})
after(() => t.close())

const ours = () => ['q1', 'q2', 'q3', 'q4', 'qc', 'none'].map((name) => ids[name]).join(',')
const order = async (query: string, headers: Record<string, string> = {}) => {
  const body = await t.json(`/api/questions/?id__in=${ours()}&page_size=50&${query}`, headers)
  const byId = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]))
  return body.results.map((question: any) => byId[question.id])
}

describe('ordering=votes__created_at on the questions listing', () => {
  test('unfiltered: by the latest answer on each question, likert and choice alike; never answered last when descending', async () => {
    assert.deepEqual(await order('ordering=-votes__created_at'), ['qc', 'q1', 'q3', 'q4', 'q2', 'none'])
    assert.deepEqual(await order('ordering=votes__created_at'), ['none', 'q2', 'q4', 'q3', 'q1', 'qc'])
    // Signed in, the same order (the signed-in listing is built another way).
    assert.deepEqual(await order('ordering=-votes__created_at', auth.bob), ['qc', 'q1', 'q3', 'q4', 'q2', 'none'])
  })

  test("filtered to one person's answers: by when that person answered", async () => {
    assert.deepEqual(await order(`answered_by=${ids.alice}&ordering=-votes__created_at`), ['q2', 'qc', 'q1'])
    assert.deepEqual(await order(`answered_by=${ids.alice}&ordering=votes__created_at`), ['q1', 'qc', 'q2'])
    assert.deepEqual(await order(`votes__user__username=${names.alice}&ordering=-votes__created_at`), ['q2', 'qc', 'q1'])
    assert.deepEqual(await order(`answered_by=${ids.bob}&ordering=-votes__created_at`), ['q1', 'q3', 'q4', 'q2'])
  })

  test("a private answer counts for its author and staff only (alice's q4 at 5)", async () => {
    assert.deepEqual(await order(`answered_by=${ids.alice}&ordering=-votes__created_at`, auth.bob), ['q2', 'qc', 'q1'])
    assert.deepEqual(await order(`answered_by=${ids.alice}&ordering=-votes__created_at`, auth.alice), ['q2', 'qc', 'q1', 'q4'])
    assert.deepEqual(await order(`answered_by=${ids.alice}&ordering=votes__created_at`, auth.staff), ['q4', 'q1', 'qc', 'q2'])
    assert.deepEqual(await order('my_history=1&ordering=-votes__created_at', auth.alice), ['q2', 'qc', 'q1', 'q4'])
  })

  test('pages follow the order, and the listing stays one statement', async () => {
    const url = (page: number, ordering: string) => `/api/questions/?id__in=${ours()}&page_size=2&page=${page}&ordering=${ordering}`
    const pages = []
    for (const page of [1, 2, 3]) pages.push(...(await t.json(url(page, '-votes__created_at'))).results.map((q: any) => q.id))
    assert.deepEqual(
      pages,
      ['qc', 'q1', 'q3', 'q4', 'q2', 'none'].map((name) => ids[name]),
    )
    const byTime = await t.get(`${url(1, '-votes__created_at')}&x=1`)
    const byCreation = await t.get(`${url(1, '-created_at')}&x=1`)
    assert.equal(byTime.statusCode, 200)
    assert.ok(Number(byTime.headers['x-query-count']) > 0, 'built afresh, not served from memory')
    assert.equal(byTime.headers['x-query-count'], byCreation.headers['x-query-count'])
  })
})
