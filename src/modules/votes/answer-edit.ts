import type { Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import { fieldError } from '../../core/errors.ts'
import { editedAnswerWeight, answerMoves } from '../../engines/liquid/liquid.answers.ts'
import { applyAnswerChange } from '../../engines/figures/apply.ts'
import type { Tally } from '../../engines/statistics/tally.ts'
import { countAnswerWritten } from '../../engines/figures/counters.repository.ts'
import { checkCollection } from './vote-checks.ts'
import { voteContextRepository } from './vote-context.repository.ts'
import { windowRefusal, type VotableQuestion } from './vote-rules.ts'
import { answerOfRow } from './votes.mapper.ts'

/** The columns an edit may write, on either answer table (only questions carry importance). */
export interface AnswerUpdate {
  value?: number | null
  skipped?: boolean
  importance?: number | null
  private?: boolean
  collection_id?: number | null
  liquid_weight: number
  modified_at: Date
}

export interface EditableAnswer {
  id: number
  question_id: number
  user_id: number
  value: number | null
  skipped: boolean
  private: boolean
  liquid_weight: number
}

/** The vote table's part of an edit: the history row and the update. */
export interface EditedRows<Row> {
  archive(vote: Row, replacedAt: Date): Promise<void>
  update(id: number, values: AnswerUpdate): Promise<Row>
}

/** A vote locked with its question and the row carrying its figures (a question, or a choice). */
export interface LockedAnswer<Row> {
  question: VotableQuestion
  vote: Row
  tally: Tally
  target: { table: 'questions' | 'question_choices'; id: number }
  now: Date
}

export interface AnswerPatch {
  skipped?: boolean
  importance?: number | null
  private?: boolean
  collection?: number | null
}

/**
 * Edits an answer of either kind. A new value or skip is a new answer: the old one moves to the history
 * and the figures change, inside the voting window only. Privacy, importance and collection change at
 * any time; going public or private moves the answer's liquid weight and the public counters. An edit notifies
 * nobody: a private answer, before or after, must not be told by a notification (docs/notifications.md).
 */
export async function editAnswer<Row extends EditableAnswer>(
  trx: Transaction<Database>,
  rows: EditedRows<Row>,
  locked: LockedAnswer<Row>,
  answer: number | null | undefined,
  patch: AnswerPatch,
  kind: 'question' | 'choice',
): Promise<Row> {
  const { question, vote, tally, target, now } = locked
  if (answer === undefined && patch.skipped === false && vote.skipped) throw fieldError('value', 'This field is required.')
  if (answer !== undefined) {
    const refusal = windowRefusal(question, now, 'value')
    if (refusal) throw refusal
    await rows.archive(vote, now)
  }
  await checkCollection(voteContextRepository(trx), patch.collection)
  const weight = await editedAnswerWeight(trx, vote, patch.private)
  const updated = await rows.update(vote.id, {
    ...(answer !== undefined ? { value: answer, skipped: answer === null } : {}),
    ...(patch.importance !== undefined ? { importance: patch.importance } : {}),
    ...(patch.private !== undefined ? { private: patch.private } : {}),
    ...(patch.collection !== undefined ? { collection_id: patch.collection } : {}),
    liquid_weight: weight,
    modified_at: now,
  })
  if (answer !== undefined || weight !== vote.liquid_weight) {
    const [removed, added] = answer !== undefined ? [answerOfRow(vote), answerOfRow(updated)] : [null, null]
    await applyAnswerChange(trx, target.table, target.id, tally, removed, added, answerMoves(vote, updated))
  }
  await countAnswerWritten(trx, vote.user_id, kind, vote, updated, now)
  return updated
}
