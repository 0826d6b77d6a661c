import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'

/**
 * Counters derived from answers, kept in the answering transaction with the definitions of
 * `recomputeStatistics`: a user's count_question_votes / count_choice_votes (rows, skips and private
 * answers included), count_votes (their sum) and last_answer_time (the latest modified_at of their
 * answers); a tag's votes_count (question votes on the questions that carry it as a tag or topic).
 *
 * Lock order of every answering transaction: the question (or choice, or question-tag) row first,
 * then the user row, then tag rows in id order. Following it everywhere is what keeps concurrent
 * writers free of deadlocks.
 */
export type AnswerKind = 'question' | 'choice'

const COUNTER: Record<AnswerKind, 'count_question_votes' | 'count_choice_votes'> = {
  question: 'count_question_votes',
  choice: 'count_choice_votes',
}

/**
 * After an answer was written at `answeredAt`: `added` is 1 for a new answer, 0 for one that replaced
 * or edited the user's earlier answer. Answer timestamps are taken after the question is locked, so an
 * answer's modified_at only grows and the latest one is a running maximum.
 */
export async function countAnswerWritten(db: Db, userId: number, kind: AnswerKind, added: 0 | 1, answeredAt: Date): Promise<void> {
  const column = COUNTER[kind]
  await db
    .updateTable('users')
    .set((eb) => ({
      [column]: eb(column, '+', added),
      count_votes: eb('count_votes', '+', added),
      last_answer_time: sql<Date>`greatest(last_answer_time, ${answeredAt}::timestamptz)`,
    }))
    .where('id', '=', userId)
    .execute()
}

/**
 * After an answer was deleted. The latest remaining answer is found again, after the user row is
 * locked: any answer written since by a transaction that has not touched the user row yet will raise
 * last_answer_time to its own time when it does. The lock is FOR NO KEY UPDATE, the lock an UPDATE of
 * the row takes: FOR UPDATE would also wait for the key-share locks that inserting an answer or a
 * history row takes on its user, and two answering transactions of one user would deadlock.
 */
export async function countAnswerDeleted(db: Db, userId: number, kind: AnswerKind): Promise<void> {
  await db.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute()
  const column = COUNTER[kind]
  await db
    .updateTable('users')
    .set((eb) => ({
      [column]: eb(column, '-', 1),
      count_votes: eb('count_votes', '-', 1),
      last_answer_time: sql<Date | null>`greatest(
        (SELECT max(modified_at) FROM question_votes WHERE user_id = ${userId}),
        (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = ${userId}))`,
    }))
    .where('id', '=', userId)
    .execute()
}

/** Adds `delta` to votes_count of every tag the question carries, locking the tags in id order. */
export async function countTagVotes(db: Db, questionId: number, delta: 1 | -1): Promise<void> {
  const carried = await sql<{ id: number }>`
    SELECT id FROM tags WHERE id IN (
      SELECT tag_id FROM question_tags WHERE question_id = ${questionId}
      UNION SELECT topic_id FROM questions WHERE id = ${questionId} AND topic_id IS NOT NULL)
    ORDER BY id FOR UPDATE`.execute(db)
  const ids = carried.rows.map((row) => row.id)
  if (ids.length === 0) return
  await db
    .updateTable('tags')
    .set((eb) => ({ votes_count: eb('votes_count', '+', delta) }))
    .where('id', 'in', ids)
    .execute()
}
