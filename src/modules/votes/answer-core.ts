import type { Kysely } from 'kysely'
import { figureFolder } from '../../engines/figures/figure-folding.ts'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { ApiError } from '../../core/errors.ts'
import { notificationEvents } from '../../engines/notifications/notification-events.ts'
import { NOTIFICATIONS_CREATED_CHANNEL, QUESTION_FIGURES_CHANNEL } from '../../db/data-changes.ts'
import { DATA_CHANGED, noticesAfterCommit, type Notice } from '../../db/notices-after-commit.ts'
import { raceRefusals } from './vote-checks.ts'
import { analyticsOf, answerOf, existingIdShape, isIdShaped, type AnalyticsField } from './vote-input.ts'
import { refusalError } from './vote-rules.ts'
import { castAnswerCall, editAnswerCall, withdrawAnswerCall, type AnswerCall } from './answer-call.repository.ts'
import { answerChanged, answerRecorded, withRefusalReason, type AnswerKindLabel } from '../../core/metrics.ts'

/**
 * Answers of both kinds, likert (counted on the question) and multiple choice (counted on the chosen choice): every
 * cast, edit and withdrawal is one database call (answer-call.repository.ts), which applies the rules, writes the
 * answer and its history, and moves the figures, the liquid weights, the user's counters and the tags' counts in the
 * lock order of every answer (the question, then its choices in id order, then the user, then the tags). What is
 * left here: the input's shape, the refusal's DRF message, and after the call the delegators to tell and the
 * change notices to send.
 */

/** An answer row of either table, as the core reads it. */
export interface AnswerRow {
  id: number
  question_id: number
  user_id: number
  value: number | null
  skipped: boolean
  private: boolean
  liquid_weight: number
  modified_at: Date
}

/** What a cast body carries besides the object voted on. */
export interface AnswerBody extends Partial<Record<AnalyticsField, string | null>> {
  object_id: number
  value?: number | null
  skipped?: boolean
  private?: boolean
  collection?: number | null
  /** Likert answers only. */
  importance?: number | null
}

/** What an edit names: each field undefined when the body leaves it as it is. */
export interface AnswerPatch {
  value?: number | null
  skipped?: boolean
  importance?: number | null
  private?: boolean
  collection?: number | null
}

/** What differs between the two kinds of answer. */
export interface AnswerKind {
  kind: 'question' | 'choice'
  /** The unique set a lost race names (`The fields ..., user must make a unique set.`). */
  uniqueSet: string
  /** The database function that casts an answer. */
  answerCall: AnswerCall
}

/** The kind an answer is counted under (civic_answers_total). */
const kindLabel = (kind: AnswerKind): AnswerKindLabel => (kind.kind === 'question' ? 'likert' : 'choice')

/** A refusal the database call named, marked with its name for the count of refusals (civic_answer_refusals_total). */
function namedRefusal(refusal: Parameters<typeof refusalError>[0], place: Parameters<typeof refusalError>[1]) {
  return withRefusalReason(refusalError(refusal, place), refusal)
}

/** A write that lost a race with another (refusingViolations answered a constraint's 400) is marked so; anything else passes. */
function racedOrFailed(error: unknown): never {
  throw error instanceof ApiError ? withRefusalReason(error, 'conflict') : error
}

/** The notices an answer's triggers would have sent: served data, its question's figures, new notifications. */
function announce(db: Kysely<Database>, questionId: number, notified: number): void {
  const notices: Notice[] = [DATA_CHANGED, { channel: QUESTION_FIGURES_CHANNEL, payload: String(questionId) }]
  if (notified > 0) notices.push({ channel: NOTIFICATIONS_CREATED_CHANNEL, payload: '' })
  noticesAfterCommit(db).send(notices)
  figureFolder(db).answered()
}

/** A new answer, or one replacing the caller's current answer (which moves to the history). */
export async function castAnswer<Row extends AnswerRow>(
  db: Kysely<Database>,
  kind: AnswerKind,
  caller: Caller,
  body: AnswerBody,
): Promise<{ vote: Row; created: boolean }> {
  const objectId = existingIdShape('object_id', body.object_id)
  const collection = body.collection ?? null
  const input = {
    object: objectId,
    user: caller.id,
    staff: caller.isStaff,
    value: answerOf(body, 'new') as number | null,
    private: body.private ?? null,
    // No row has id -1: a collection id out of range is refused by the call, after the rules of the object.
    collection: collection === null || isIdShaped(collection) ? collection : -1,
    importance: body.importance,
    ...analyticsOf(body),
  }
  const called = await refusingViolations(
    () => castAnswerCall<Row>(db, kind.answerCall, input),
    raceRefusals(kind.uniqueSet, objectId, body.collection),
  ).catch(racedOrFailed)
  if (called.outcome !== 'written' && called.outcome !== 'replaced') {
    throw namedRefusal(called.outcome, { objectId, collection, windowField: 'object_id' })
  }
  answerRecorded(kindLabel(kind), called.outcome === 'written' ? 'first' : 'replaced')
  // The people whose votes a public first answer now casts hear of it (docs/notifications.md).
  const notified = called.carried > 0 ? await notificationEvents.delegateAnswered(db, caller.id, called.vote.question_id) : 0
  announce(db, called.vote.question_id, notified)
  return { vote: called.vote, created: called.outcome === 'written' }
}

/**
 * Edits an answer. A new value or skip is a new answer: the old one moves to the history and the figures change,
 * inside the voting window only. Privacy, importance and collection change at any time. An edit tells nobody: a
 * private answer, before or after, must not be told by a notification (docs/notifications.md).
 */
export async function editAnswerById<Row extends AnswerRow>(
  db: Kysely<Database>,
  kind: AnswerKind,
  voteId: number,
  patch: AnswerPatch,
): Promise<Row> {
  const answer = answerOf(patch, 'edit')
  if (patch.collection !== undefined && patch.collection !== null) existingIdShape('collection', patch.collection)
  const called = await refusingViolations(
    () =>
      editAnswerCall<Row>(db, kind.kind === 'choice', voteId, {
        value: answer,
        unskip: patch.skipped === false,
        importance: patch.importance,
        private: patch.private,
        collection: patch.collection,
      }),
    raceRefusals(kind.uniqueSet, null, patch.collection),
  ).catch(racedOrFailed)
  if (called.outcome !== 'edited')
    throw namedRefusal(called.outcome, { objectId: null, collection: patch.collection, windowField: 'value' })
  answerChanged(kindLabel(kind), 'edited')
  announce(db, called.vote!.question_id, 0)
  return called.vote!
}

/** Withdraws an answer: it moves to the history and stops counting, inside the voting window only. */
export async function withdrawAnswer(db: Kysely<Database>, kind: AnswerKind, voteId: number): Promise<void> {
  const called = await withdrawAnswerCall(db, kind.kind === 'choice', voteId)
  if (called.outcome !== 'withdrawn') throw namedRefusal(called.outcome, { objectId: null, windowField: 'non_field_errors' })
  answerChanged(kindLabel(kind), 'withdrawn')
  // Those whose vote a public answer cast hear that it now goes further along their delegation.
  const notified = called.carried > 0 ? await notificationEvents.delegateWithdrew(db, called.voter, called.question) : 0
  announce(db, called.question, notified)
}
