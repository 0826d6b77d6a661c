import { sql, type RawBuilder } from 'kysely'
import type { Db } from './types.ts'

/**
 * Answers to a question run side by side, each holding the question's answering gate shared (migration 046). A
 * change of anything an answer is checked against (the question, its choices, tags or delegations, a recount) holds it
 * exclusively until its transaction ends, taken before any row lock: lock_question_answers is its one definition.
 * null or a long list closes every question's gate at once.
 */
export async function lockQuestionAnswers(db: Db, questionIds: readonly number[] | null): Promise<void> {
  if (questionIds !== null && questionIds.length === 0) return
  await sql`SELECT lock_question_answers(${questionIds === null ? null : [...questionIds]}::integer[])`.execute(db)
}

/**
 * Adds the answers' count deltas to the stored counts, and the tags' unreleased deltas to theirs (fold_figure_deltas),
 * and the liquid weights and kept block sizes leaves appended to theirs (fold_liquid_deltas). Without `wait`, rows another
 * transaction holds are left for the next fold, and a fold under way elsewhere makes this one a no-op. With
 * questionIds, only theirs: for a writer holding their gate that then sets their counts outright.
 */
export async function foldFigureDeltas(db: Db, wait = false, questionIds: readonly number[] | null = null): Promise<number> {
  const questions = questionIds === null ? null : [...questionIds]
  // The weights and kept sizes first: what they lock, answers lock before the counts (migration 054).
  const liquid = await sql<{ folded: number }>`SELECT fold_liquid_deltas(${questions}::integer[], ${wait}) AS folded`.execute(db)
  const { rows } = await sql<{ folded: number }>`SELECT fold_figure_deltas(${wait}, ${questions}::integer[]) AS folded`.execute(db)
  return Number(liquid.rows[0].folded) + Number(rows[0].folded)
}

/**
 * Vacuums the delta tables: every fold deletes what answers appended, and until vacuum comes each read of a
 * question's deltas walks the index entries of every row deleted since (a minute at least with autovacuum on, for
 * ever with it off). SKIP_LOCKED: a vacuum under way elsewhere is enough.
 */
export async function vacuumFigureDeltas(db: Db): Promise<void> {
  await sql`VACUUM (SKIP_LOCKED) question_figure_deltas, tag_vote_deltas, tag_unreleased_deltas, liquid_weight_deltas,
    liquid_block_deltas`.execute(db)
}

/**
 * The direct answers (skips too, with `skips`) a question's deltas not yet folded add, over the question and its
 * choices: for expressions that count answers from the stored counts.
 */
export function pendingDirectAnswers(questionId: RawBuilder<unknown>, skips: boolean): RawBuilder<number> {
  const levels = ['minimum', 'low', 'medium', 'high', 'maximum', ...(skips ? ['skipped'] : [])].map((l) => `p.direct_${l}`)
  return sql<number>`COALESCE((SELECT sum(${sql.raw(levels.join(' + '))}) FROM pending_figure_counts p
    WHERE p.question_id = ${questionId}), 0)`
}
