import { sql } from 'kysely'
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { likertFigures, type LevelCounts } from '../../src/engines/statistics/likert.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

type Tally = { counts: number[]; skipped: number }
const tally = () => ({ counts: [0, 0, 0, 0, 0], skipped: 0 })

/** A naive recomputation from the raw answers, row by row, to hold the stored figures against. */
function expectedFamily(prefix: string, t: Tally) {
  const figures = likertFigures(t.counts as unknown as LevelCounts)
  return {
    [`${prefix}_vote_count`]: figures.vote_count,
    [`${prefix}_sum`]: figures.sum,
    [`${prefix}_value`]: figures.value,
    [`${prefix}_consensus`]: figures.consensus,
    [`${prefix}_heat`]: figures.heat,
    [`${prefix}_skipped`]: t.skipped,
    [`${prefix}_minimum`]: t.counts[0],
    [`${prefix}_low`]: t.counts[1],
    [`${prefix}_medium`]: t.counts[2],
    [`${prefix}_high`]: t.counts[3],
    [`${prefix}_maximum`]: t.counts[4],
  }
}

function assertClose(actual: Record<string, unknown>, expected: Record<string, number>, label: string) {
  for (const [key, value] of Object.entries(expected)) {
    assert.ok(Math.abs((actual[key] as number) - value) < 1e-9, `${label} ${key}: stored ${actual[key]}, recomputed ${value}`)
  }
}

/** The answers a question's figures count: every current answer as released (private ones in batches, migration 038). */
async function released<T>(view: 'released_question_votes' | 'released_choice_votes', columns: string): Promise<T[]> {
  const { rows } = await sql<T>`SELECT ${sql.raw(columns)} FROM ${sql.table(view)}`.execute(t.database.db)
  return rows
}

test('every question shown through the API carries figures equal to a recomputation from the answers it counts', async () => {
  const all = await released<{ question_id: number; value: number | null; skipped: boolean; private: boolean }>(
    'released_question_votes',
    'question_id, value, skipped, private',
  )
  assert.ok(
    all.some((vote) => vote.private),
    'the tiny seed holds private answers',
  )
  const votes = all
  const byQuestion = new Map<number, Tally>()
  for (const vote of votes) {
    const entry = byQuestion.get(vote.question_id) ?? tally()
    if (vote.skipped) entry.skipped += 1
    else entry.counts[(vote.value as number) - 1] += 1
    byQuestion.set(vote.question_id, entry)
  }
  const staff = await t.database.db
    .insertInto('users')
    .values({ username: 'figures_staff', is_staff: true })
    .returning('id')
    .executeTakeFirstOrThrow()
  const token = await t.tokenFor(staff.id)
  const { results, count } = await t.json('/api/questions/?page_size=100', { authorization: `Token ${token}` })
  assert.equal(results.length, count)
  let answered = 0
  for (const question of results) {
    const expected = byQuestion.get(question.id) ?? tally()
    if (expected.counts.some((c) => c > 0)) answered += 1
    assertClose(question, expectedFamily('direct', expected), `question ${question.id}`)
    assertClose(question, expectedFamily('liquid', expected), `question ${question.id}`)
    assert.ok(Math.abs(question.polarisation - likertFigures(expected.counts as unknown as LevelCounts).polarisation) < 1e-9)
  }
  assert.ok(answered > 5, 'the tiny seed answers most questions')
})

test('every choice carries figures equal to a recomputation from the answers it counts', async () => {
  const votes = await released<{ question_id: number; choice_id: number; value: number | null; skipped: boolean; private: boolean }>(
    'released_choice_votes',
    'question_id, choice_id, value, skipped, private',
  )
  const byChoice = new Map<number, Tally>()
  for (const vote of votes) {
    const entry = byChoice.get(vote.choice_id) ?? tally()
    if (vote.skipped) entry.skipped += 1
    else entry.counts[(vote.value as number) - 1] += 1
    byChoice.set(vote.choice_id, entry)
  }
  const { results } = await t.json('/api/question_choices/?page_size=100')
  assert.ok(results.length > 0)
  for (const choice of results) {
    const expected = byChoice.get(choice.id) ?? tally()
    assertClose(choice, expectedFamily('direct', expected), `choice ${choice.id}`)
    assertClose(choice, expectedFamily('liquid', expected), `choice ${choice.id}`)
  }
})

test('user counters, as anyone sees them, equal a count of their public rows', async () => {
  const db = t.database.db
  const users = await t.json('/api/users/?page_size=100')
  const questionVotes = await db.selectFrom('question_votes').select(['user_id']).where('private', '=', false).execute()
  const choiceVotes = await db.selectFrom('question_choice_votes').select(['user_id']).where('private', '=', false).execute()
  const asked = await db.selectFrom('questions').select(['user_id']).execute()
  const countBy = (rows: { user_id: number }[]) =>
    rows.reduce((m, r) => m.set(r.user_id, (m.get(r.user_id) ?? 0) + 1), new Map<number, number>())
  const [qv, cv, qs] = [countBy(questionVotes), countBy(choiceVotes), countBy(asked)]
  for (const user of users.results) {
    assert.equal(user.count_question_votes, qv.get(user.id) ?? 0, `user ${user.id} question votes`)
    assert.equal(user.count_choice_votes, cv.get(user.id) ?? 0, `user ${user.id} choice votes`)
    assert.equal(user.count_votes, (qv.get(user.id) ?? 0) + (cv.get(user.id) ?? 0), `user ${user.id} votes`)
    assert.equal(user.count_questions, qs.get(user.id) ?? 0, `user ${user.id} questions`)
  }
})
