import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../db/types.ts'

/**
 * Counters derived from answers, kept in the answering transaction with the definitions of
 * `recomputeStatistics`: a user's count_question_votes / count_choice_votes (rows, skips and private
 * answers included), count_votes (their sum) and last_answer_time (the latest modified_at of their
 * answers); the same over public answers only in public_count_question_votes / public_count_choice_votes /
 * public_count_votes / public_last_answer_time, which is what other people see (docs/privacy.md); a tag's
 * votes_count (question votes on the questions that carry it as a tag or topic).
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

const PUBLIC_COUNTER: Record<AnswerKind, 'public_count_question_votes' | 'public_count_choice_votes'> = {
  question: 'public_count_question_votes',
  choice: 'public_count_choice_votes',
}

/** The privacy of an answer before or after a change (null: there was none, or none is left). */
export type AnswerPrivacy = { private: boolean } | null

const isPublic = (answer: AnswerPrivacy) => answer !== null && !answer.private

/** The latest modified_at among the user's answers (public ones only with `publicOnly`). */
function latestAnswer(userId: number, publicOnly: boolean) {
  const only = publicOnly ? sql`AND NOT private` : sql``
  return sql<Date | null>`greatest(
    (SELECT max(modified_at) FROM question_votes WHERE user_id = ${userId} ${only}),
    (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = ${userId} ${only}))`
}

/**
 * Locks the user row before a latest time is found again: any answer written since by a transaction that has
 * not touched the user row yet will raise the time to its own when it does. The lock is FOR NO KEY UPDATE, the
 * lock an UPDATE of the row takes: FOR UPDATE would also wait for the key-share locks that inserting an answer
 * or a history row takes on its user, and two answering transactions of one user would deadlock.
 */
export async function lockUser(db: Db, userId: number): Promise<void> {
  await db.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute()
}

/**
 * After an answer was written at `answeredAt` (new, replacing the user's earlier answer, or edited): `before`
 * is the answer it replaced or edited (null for a new one), `after` the answer now. Answer timestamps are taken
 * after the question is locked, so an answer's modified_at only grows and the latest one is a running maximum;
 * an answer that stops being public is the one case where the latest public time is found again.
 */
export async function countAnswerWritten(
  db: Db,
  userId: number,
  kind: AnswerKind,
  before: AnswerPrivacy,
  after: { private: boolean },
  answeredAt: Date,
): Promise<void> {
  if (locksUserFirst(before, after)) await lockUser(db, userId)
  await countingAnswerWritten(db, userId, kind, before, after, answeredAt).execute()
}

/** Whether counting the answer finds a latest time again, so that the user row is locked in a statement before. */
export function locksUserFirst(before: AnswerPrivacy, after: { private: boolean }): boolean {
  return Number(isPublic(after)) - Number(isPublic(before)) < 0
}

/**
 * The update of `countAnswerWritten`, not yet run, returning the user's id (an answer's write runs it with the
 * rest); where `locksUserFirst`, the caller locks the user row (`lockUser`) in a statement before it.
 */
export function countingAnswerWritten(
  db: Db,
  userId: number,
  kind: AnswerKind,
  before: AnswerPrivacy,
  after: { private: boolean },
  answeredAt: Date,
) {
  const added = before === null ? 1 : 0
  const publicDelta = Number(isPublic(after)) - Number(isPublic(before))
  const column = COUNTER[kind]
  const publicColumn = PUBLIC_COUNTER[kind]
  const publicLast = isPublic(after)
    ? sql<Date>`greatest(public_last_answer_time, ${answeredAt}::timestamptz)`
    : publicDelta < 0
      ? latestAnswer(userId, true)
      : sql<Date | null>`public_last_answer_time`
  return db
    .updateTable('users')
    .set((eb) => ({
      [column]: eb(column, '+', added),
      count_votes: eb('count_votes', '+', added),
      last_answer_time: sql<Date>`greatest(last_answer_time, ${answeredAt}::timestamptz)`,
      [publicColumn]: eb(publicColumn, '+', publicDelta),
      public_count_votes: eb('public_count_votes', '+', publicDelta),
      public_last_answer_time: publicLast,
    }))
    .where('id', '=', userId)
    .returning('id')
}

/** After an answer was deleted: the latest remaining answer (and public answer, for a public one) is found again. */
export async function countAnswerDeleted(db: Db, userId: number, kind: AnswerKind, deleted: { private: boolean }): Promise<void> {
  await lockUser(db, userId)
  const column = COUNTER[kind]
  const publicColumn = PUBLIC_COUNTER[kind]
  const publicDelta = deleted.private ? 0 : 1
  await db
    .updateTable('users')
    .set((eb) => ({
      [column]: eb(column, '-', 1),
      count_votes: eb('count_votes', '-', 1),
      last_answer_time: latestAnswer(userId, false),
      [publicColumn]: eb(publicColumn, '-', publicDelta),
      public_count_votes: eb('public_count_votes', '-', publicDelta),
      public_last_answer_time: deleted.private ? sql<Date | null>`public_last_answer_time` : latestAnswer(userId, true),
    }))
    .where('id', '=', userId)
    .execute()
}

/**
 * The update of `countTagVotes`, not yet run: the tags are locked in id order by a sub-select that runs once,
 * first (it waits for `after`, a query in the same statement, so that the user row is locked before the tags).
 */
export function countingTagVotes(questionId: number, delta: 1 | -1, after: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`UPDATE tags SET votes_count = votes_count + ${delta}::integer WHERE id IN (
    SELECT id FROM tags WHERE id IN (
      SELECT tag_id FROM question_tags WHERE question_id = ${questionId}
      UNION SELECT topic_id FROM questions WHERE id = ${questionId} AND topic_id IS NOT NULL)
    AND EXISTS (${after})
    ORDER BY id FOR UPDATE)`
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
