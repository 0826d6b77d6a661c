import { sql } from 'kysely'
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'

/**
 * survey_results_all on the seeded data (many regions, census records, likert and choice questions): every likert
 * question of a page, loaded in one batch, has the figures question_weighted_demographics gives it alone, and the
 * page is in the order of the answers counted from the raw rows. At the default cell size (5): a question with 1..4
 * private answers shows the figures of its public answers, counted here from the rows; it is compared with
 * question_weighted_demographics only where both count every answer (no private answer, or 5 and more).
 */

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(async () => {
  await t?.close()
})

test('a page of the seeded questions: each as weighted alone, most answered first', async () => {
  const page = await t.json('/api/survey_results_all/?page_size=100')
  assert.ok(page.results.length > 0)
  const likert = page.results.filter((r: { subtype: string }) => r.subtype === 'likert')
  assert.ok(
    likert.some((r: { weighted: { method: string | null } }) => r.weighted.method !== null),
    'something weighted',
  )
  const db = t.database.db
  // The answers as published: private ones in released batches (migration 038).
  const { rows: votes } = await sql<{ question_id: number; value: number | null; private: boolean }>`
    SELECT question_id, value, private FROM released_question_votes`.execute(db)
  let compared = 0
  for (const result of likert.slice(0, 25)) {
    const own = votes.filter((v) => v.question_id === result.id)
    const privately = own.filter((v) => v.private).length
    const shown = privately >= 5 ? own : own.filter((v) => !v.private)
    assert.equal(result.sample_size, shown.filter((v) => v.value !== null).length, `${result.id}`)
    assert.equal(result.skipped, shown.filter((v) => v.value === null).length, `${result.id}`)
    for (const [level, share] of Object.entries(result.direct.shares) as [string, { count: number }][]) {
      assert.equal(share.count, shown.filter((v) => v.value === Number(level)).length)
      assert.ok(share.count >= 5)
    }
    if (privately > 0 && privately < 5) continue
    compared++
    const { overall } = await t.json(`/api/question_weighted_demographics/${result.id}/age/`)
    assert.equal(result.sample_size, overall.sample_size)
    assert.equal(result.skipped, overall.skipped)
    for (const key of ['method', 'partial', 'trimmed', 'excluded', 'effective_sample_size', 'design_effect', 'weighted_average_vote'])
      assert.deepEqual(result.weighted[key], overall[key], `${result.id} ${key}`)
    for (const level of Object.keys(result.direct.shares)) {
      assert.equal(result.direct.shares[level].count, overall.shares[level].count)
      assert.deepEqual(result.weighted.shares[level].weighted_percentage, overall.shares[level].weighted_percentage)
    }
  }
  assert.ok(compared > 0, 'some questions compared with question_weighted_demographics')
  // The order: answers counted as published (likert and choice, skips included, private ones in released batches,
  // counted from the fifth); ties by id in the same direction, as every listing breaks them.
  const counts = new Map<number, number>()
  const held = new Map<number, number>()
  for (const view of ['released_question_votes', 'released_choice_votes']) {
    const { rows } = await sql<{ question_id: number; private: boolean }>`SELECT question_id, private FROM ${sql.table(view)}`.execute(db)
    for (const row of rows) {
      const into = row.private ? held : counts
      into.set(row.question_id, (into.get(row.question_id) ?? 0) + 1)
    }
  }
  for (const [id, n] of held) if (n >= 5) counts.set(id, (counts.get(id) ?? 0) + n)
  const ids = page.results.map((r: { id: number }) => r.id)
  const answers = ids.map((id: number) => counts.get(id) ?? 0)
  for (let i = 1; i < ids.length; i++)
    assert.ok(answers[i - 1] > answers[i] || (answers[i - 1] === answers[i] && ids[i - 1] > ids[i]), `order at ${i}`)
  // A multiple-choice question's picks are its choice votes, skips apart, private ones from the fifth.
  for (const result of page.results.filter((r: { subtype: string }) => r.subtype === 'mcq').slice(0, 5)) {
    const all = await db
      .selectFrom('question_choice_votes')
      .select(['choice_id', 'skipped', 'private'])
      .where('question_id', '=', result.id)
      .execute()
    const rows =
      all.filter((row) => !row.private).length === all.length || all.filter((row) => row.private).length >= 5
        ? all
        : all.filter((row) => !row.private)
    assert.equal(result.skipped, rows.filter((row) => row.skipped).length)
    for (const choice of result.choices) {
      assert.equal(choice.count, rows.filter((row) => row.choice_id === choice.id && !row.skipped).length)
      assert.ok(choice.count >= 5)
    }
  }
})
