import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { sql } from 'kysely'
import { unreleasedProblems } from '../../src/disclosure/batches.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { openSse, type SseStream } from '../helpers/sse.ts'

/**
 * The moment of answering (docs/privacy.md, Batches). Once a question counts its private answers, one more private
 * answer, an edit or a withdrawal of one, or one made public, changes nothing anyone else reads until k such changes
 * have gathered; then they are released together. With MIN_CELL_SIZE 5.
 */
let t: TestApp
let base: string
const people: Record<string, { id: number; token: string }> = {}
const NAMES = ['author', 'trustee', 'dora', 'stranger', 'staff', 'a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b2', 'b3', 'b4', 'b5', 'pub'] as const
const OBSERVERS = ['anonymous', 'stranger', 'staff'] as const
const streams: SseStream[] = []
let tag = 0

before(async () => {
  t = await createTestApp('empty', { LIVE_INTERVAL_MS: '50', LIVE_HEARTBEAT_MS: '60000' })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, { username: `batch_${name}`, is_staff: name === 'staff', dob: '1985-06-01', gender: 1 })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  tag = (await insertTag(t.database.db, 'Breakwaters')).id
  paired = (await ask({ question: 'Is the harbour well kept?' })).id
  for (const name of NAMES) if (!['author', 'stranger', 'staff'].includes(name)) await rate(name, paired, 3)
})
after(async () => {
  for (const stream of streams) stream.close()
  await t.close()
})

const headers = (who: string): Record<string, string> => (who === 'anonymous' ? {} : { authorization: `Token ${people[who].token}` })
const call = async (method: 'POST' | 'PATCH' | 'DELETE', who: string, url: string, body?: unknown) => {
  const response = await t.send(method, url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
  return response.statusCode === 204 ? null : response.json()
}
const ask = (body: Record<string, unknown>) => call('POST', 'author', '/api/questions/', { tags: [{ tag: { id: tag } }], ...body })
const rate = (who: string, question: number, value: number, isPrivate = false) =>
  call('POST', who, '/api/question_votes/', { object_id: question, value, private: isPrivate })
const choose = (who: string, choice: number, isPrivate = false) =>
  call('POST', who, '/api/question_choice_votes/', { object_id: choice, value: 5, private: isPrivate })

/** The question's figures wherever they are published, with the votes_count of tags left aside (a tag's own rule). */
async function observe(who: string, question: number): Promise<unknown[]> {
  const get = async (url: string) => JSON.parse((await t.get(url, headers(who))).body)
  const figures = (row: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(row).filter(([name]) => /^(direct|liquid)_|^polarisation$/.test(name)))
  const detail = await get(`/api/questions/${question}/`)
  const listed = (await get(`/api/questions/?id=${question}`)).results[0]
  const stats = await get(`/api/question_stats/${question}/`)
  const sorted = (await get(`/api/questions/?tags__tag=${tag}&ordering=-liquid_value&page_size=50`)).results.map((row: any) => row.id)
  return [
    figures(detail),
    detail.choices.map(figures),
    figures(listed),
    listed.choices.map(figures),
    figures(stats),
    [stats.answer_count, stats.private_answer_count, stats.replaced_answer_count, stats.first_answer_at, stats.last_answer_at],
    stats.choices.map(figures),
    (await get(`/api/question_choices/?question=${question}`)).results.map(figures),
    (await get(`/api/next_question_light/?id__in=${question}`)).results.map(figures),
    sorted,
    await get(`/api/question_demographics/?question=${question}`),
    await get(`/api/question_geographics/?question=${question}`),
    await get(`/api/question_weighted_demographics/${question}/age/`),
    await get(`/api/compare_questions/?questiona=${paired}&questionb=${question}`),
    await get(`/api/survey_results_all/?id=${question}`),
  ]
}
/** A public question everyone in these tests answers first, so that compare_questions has pairs. */
let paired = 0
const observeAll = (question: number) => Promise.all(OBSERVERS.map((who) => observe(who, question)))
const unchanged = (before: unknown[][], afterwards: unknown[][], moment: string) =>
  OBSERVERS.forEach((who, i) => assert.deepEqual(afterwards[i], before[i], `${who} sees a change ${moment}`))

describe('after the first batch: each private change waits for k of them', () => {
  test('one more private answer, an edit, a withdrawal, one made public: nothing moves; the fifth releases all', async () => {
    const question = (await ask({ question: 'Should the breakwater be extended?' })).id
    await rate('pub', question, 3)
    for (const who of ['a1', 'a2', 'a3', 'a4', 'a5']) await rate(who, question, 1, true)
    const first = await t.json(`/api/questions/${question}/`)
    assert.deepEqual([first.direct_minimum, first.direct_medium, first.direct_vote_count], [5, 1, 6], 'the first five count together')
    const before = await observeAll(question)
    assert.equal((await t.json(`/api/question_demographics/?question=${question}`)).total_votes, 6)

    await rate('b1', question, 5, true)
    unchanged(before, await observeAll(question), 'after one more private answer')
    const [own] = (await t.json(`/api/question_votes/?user=${people.a1.id}&question=${question}`, headers('a1'))).results
    await call('PATCH', 'a1', `/api/question_votes/${own.id}/`, { value: 4 })
    unchanged(before, await observeAll(question), 'after an edit of a counted private answer')
    const [gone] = (await t.json(`/api/question_votes/?user=${people.a2.id}&question=${question}`, headers('a2'))).results
    await call('DELETE', 'a2', `/api/question_votes/${gone.id}/`)
    unchanged(before, await observeAll(question), 'after a withdrawal of one')
    const [shown] = (await t.json(`/api/question_votes/?user=${people.a3.id}&question=${question}`, headers('a3'))).results
    await call('PATCH', 'a3', `/api/question_votes/${shown.id}/`, { private: false, value: 2 })
    unchanged(before, await observeAll(question), 'after one made public with another value')

    // The fifth change releases the five together: the figures are those of every answer as it is now.
    await rate('b2', question, 5, true)
    const released = await t.json(`/api/questions/${question}/`)
    assert.deepEqual(
      [released.direct_minimum, released.direct_low, released.direct_medium, released.direct_high, released.direct_maximum],
      [2, 1, 1, 1, 2],
    )
    assert.equal(released.direct_vote_count, 7)
    const breakdown = await t.json(`/api/question_demographics/?question=${question}`)
    assert.equal(breakdown.total_votes, 7, 'the breakdowns follow the same batches')
    // Then one more waits again.
    const again = await observeAll(question)
    await rate('b3', question, 1, true)
    unchanged(again, await observeAll(question), 'after the next private answer')
  })

  test('multiple choice: a counted private pick moved to another choice waits too', async () => {
    const asked = await ask({ question: 'Which breakwater first?', choices: [{ text: 'East' }, { text: 'West' }] })
    const [east, west] = asked.choices.map((choice: { id: number }) => choice.id)
    for (const who of ['a1', 'a2', 'a3', 'a4', 'a5']) await choose(who, east, true)
    const before = await observeAll(asked.id)
    assert.equal((await t.json(`/api/question_choices/${east}/`)).direct_vote_count, 5)
    await choose('a1', west, true)
    unchanged(before, await observeAll(asked.id), 'after a counted pick moved')
    await choose('b1', west, true)
    unchanged(before, await observeAll(asked.id), 'after another private pick')
  })

  test('the live stream sends nothing for a private change after the first batch', async () => {
    const question = (await ask({ question: 'Should the breakwater be lit at night?' })).id
    for (const who of ['a1', 'a2', 'a3', 'a4', 'a5']) await rate(who, question, 2, true)
    const stream = await openSse(`${base}/api/questions/${question}/live/`)
    streams.push(stream)
    const first = await stream.next()
    assert.equal(first.data.direct_low, 5)
    await rate('b1', question, 5, true)
    await new Promise((resolve) => setTimeout(resolve, 600))
    assert.equal(stream.events.length, 1, `events after a private answer: ${JSON.stringify(stream.events.slice(1))}`)
    await rate('pub', question, 4)
    const next = await stream.until((event) => event.data.direct_high === 1, 'the public answer')
    assert.deepEqual([next.data.direct_low, next.data.direct_maximum], [5, 0], 'the public answer alone')
  })
})

describe("a delegator reads its trustee's answer as released", () => {
  test("the representation keeps saying private_answer while the trustee's change is unreleased; a new answer waits", async () => {
    const question = (await ask({ question: 'Should the breakwater have a footpath?' })).id
    await call('POST', 'dora', '/api/question_delegation/', { question, trustee: people.trustee.id })
    const read = async () => (await t.get(`/api/questions/${question}/representation/`, headers('dora'))).body
    for (const who of ['trustee', 'a1', 'a2', 'a3', 'a4']) await rate(who, question, 2, true)
    const released = await read()
    assert.equal(JSON.parse(released).outcome, 'private_answer')
    const [vote] = (await t.json(`/api/question_votes/?user=${people.trustee.id}&question=${question}`, headers('trustee'))).results
    await call('DELETE', 'trustee', `/api/question_votes/${vote.id}/`)
    assert.equal(await read(), released, 'a withdrawal shows with its batch only')
    for (const who of ['b1', 'b2', 'b3', 'b4']) await rate(who, question, 3, true)
    assert.equal(JSON.parse(await read()).outcome, 'dead_end', 'released: the trustee has no answer and delegates nowhere')
  })
})

describe('civic-survey check follows the unreleased changes', () => {
  test('nothing to report after the writes above; a stray row or a question at k is reported', async () => {
    const db = t.database.db
    assert.deepEqual(await unreleasedProblems(db), [])
    const question = (await ask({ question: 'Should the breakwater be painted?' })).id
    await rate('a1', question, 2)
    await sql`INSERT INTO unreleased_answers (question_id, user_id, released_answer) VALUES (${question}, ${people.a1.id}, false)`.execute(
      db,
    )
    const problems = await unreleasedProblems(db)
    assert.deepEqual(problems, [{ question, user: people.a1.id, what: 'no private answer to release' }])
    await sql`DELETE FROM unreleased_answers WHERE question_id = ${question}`.execute(db)
  })
})
