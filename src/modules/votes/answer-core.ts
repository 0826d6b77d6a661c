import { sql, type Kysely, type OperationNodeSource, type RawBuilder, type Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Db } from '../../db/types.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, invalidPk, fieldError } from '../../core/errors.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { applyAnswerChange, storingAnswerChange, type LiquidMove } from '../../engines/figures/apply.ts'
import { lockTallies } from '../../engines/figures/figures.repository.ts'
import type { Answer, Tally } from '../../engines/statistics/tally.ts'
import {
  countAnswerDeleted,
  countingAnswerWritten,
  countingTagVotes,
  countTagVotes,
  lockUser,
  locksUserFirst,
} from '../../engines/figures/counters.repository.ts'
import { answerMoves, ownAnswerWeight, shiftingRepresentative, shiftRepresentative } from '../../engines/liquid/liquid.answers.ts'
import { notificationEvents } from '../../engines/notifications/notification-events.ts'
import { NOTIFICATIONS_CREATED_CHANNEL, QUESTION_FIGURES_CHANNEL } from '../../db/data-changes.ts'
import { DATA_CHANGED, noticesAfterCommit, type Notice } from '../../db/notices-after-commit.ts'
import type { Block } from '../../engines/liquid/liquid.repository.ts'
import { editAnswer, type AnswerPatch, type EditedRows, type LockedAnswer, type EditableAnswer } from './answer-edit.ts'
import { raceRefusals } from './vote-checks.ts'
import { voteContextRepository } from './vote-context.repository.ts'
import { analyticsOf, answerOf, existingIdShape, isIdShaped, type Analytics, type AnalyticsField } from './vote-input.ts'
import { namedRefusal, namedWindowRefusal, voteRefusal, windowRefusal } from './vote-rules.ts'
import { castAnswerCall, editAnswerCall, withdrawAnswerCall, type AnswerCall } from './answer-call.repository.ts'
import { answerOfRow } from './votes.mapper.ts'

/**
 * Answers of both kinds, likert (counted on the question) and multiple choice (counted on the chosen
 * choice), cast, edited and withdrawn one way. Every write runs in one transaction that locks the question
 * first, then the rows carrying the figures in id order, then the voter's answer, so answers to one question
 * are applied one after another and the figures move by exact deltas; the voter's counters, the liquid
 * weights and the delegators' notifications change in the same transaction.
 */

/** An answer row of either table, as the core reads it. */
export type AnswerRow = EditableAnswer & { modified_at: Date }

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

/** The columns every answer writes. */
export interface AnswerValues extends Analytics {
  value: number | null
  skipped: boolean
  private: boolean
  liquid_weight: number
  collection_id: number | null
  modified_at: Date
}

/** Who a first answer belongs to and when it was first given. */
export interface FirstAnswer {
  question_id: number
  user_id: number
  created_at: Date
}

/** An answer table's rows (its repository). */
export interface AnswerRows<Row> extends EditedRows<Row> {
  /** The insert that keeps an answer in the history, not yet run. */
  archiving(vote: Row, replacedAt: Date): OperationNodeSource
  findById(id: number): Promise<Row | undefined>
  lockById(id: number): Promise<Row | undefined>
  remove(id: number): Promise<void>
}

/** What differs between the two kinds of answer. */
export interface AnswerKind<Row extends AnswerRow, Body extends AnswerBody, Rows extends AnswerRows<Row>> {
  kind: 'question' | 'choice'
  /** The table whose rows carry the figures the answers count in. */
  figures: 'questions' | 'question_choices'
  /** The answers' own table. */
  answers: 'question_votes' | 'question_choice_votes'
  /** The unique set a lost race names (`The fields ..., user must make a unique set.`). */
  uniqueSet: string
  rows(db: Db): Rows
  /** The figure row an answer counts in. */
  targetOf(vote: Row): number
  /** The insert of a first answer, returning it, not yet run. */
  inserting(rows: Rows, values: AnswerValues, first: FirstAnswer, objectId: number, body: Body): OperationNodeSource
  /** The update that writes an answer over the current one (kept in the history), returning it, not yet run. */
  replacing(rows: Rows, existing: Row, values: AnswerValues, objectId: number, body: Body): OperationNodeSource
  /** Whether a first skip tells the delegators too. */
  skipNotifies: boolean
  /** Whether answers count in the question's tags' vote counts. */
  countsTagVotes: boolean
  /** The database function that casts a first or replacing answer in one call (migrations 029, 030 and 032). */
  answerCall: AnswerCall
}

type AnyKind<Row extends AnswerRow, Body extends AnswerBody> = AnswerKind<Row, Body, AnswerRows<Row>>

/** What an answer's transaction leaves to its process to announce once committed (migration 023). */
interface Announced {
  questionId: number
  notified: number
}

/** The notices the answer's triggers would have sent: served data, its question's figures, new notifications. */
function announce(db: Kysely<Database>, { questionId, notified }: Announced): void {
  const notices: Notice[] = [DATA_CHANGED, { channel: QUESTION_FIGURES_CHANNEL, payload: String(questionId) }]
  if (notified > 0) notices.push({ channel: NOTIFICATIONS_CREATED_CHANNEL, payload: '' })
  noticesAfterCommit(db).send(notices)
}

/** A new answer, or one replacing the caller's current answer (which moves to the history). */
export async function castAnswer<Row extends AnswerRow, Body extends AnswerBody>(
  db: Kysely<Database>,
  kind: AnyKind<Row, Body>,
  caller: Caller,
  body: Body,
): Promise<{ vote: Row; created: boolean }> {
  const objectId = existingIdShape('object_id', body.object_id)
  const answer = answerOf(body, 'new') as number | null
  const collection = body.collection ?? null
  if (collection === null || isIdShaped(collection)) {
    const input = {
      object: objectId,
      user: caller.id,
      staff: caller.isStaff,
      value: answer,
      private: body.private ?? null,
      collection,
      importance: body.importance,
      ...analyticsOf(body),
    }
    const called = await refusingViolations(
      () => castAnswerCall<Row>(db, kind.answerCall, input),
      raceRefusals(kind.uniqueSet, objectId, body.collection),
    )
    if (called.outcome === 'written' || called.outcome === 'replaced') {
      announce(db, { questionId: called.vote.question_id, notified: 0 })
      return { vote: called.vote, created: called.outcome === 'written' }
    }
    if (called.outcome !== 'general') throw namedRefusal(called.outcome, objectId, collection)
  }
  const work = (trx: Transaction<Database>) => castIn(trx, kind, caller, objectId, answer, body)
  const cast = await refusingViolations(() => db.transaction().execute(work), raceRefusals(kind.uniqueSet, objectId, body.collection))
  announce(db, cast)
  return cast
}

async function castIn<Row extends AnswerRow, Body extends AnswerBody>(
  trx: Transaction<Database>,
  kind: AnyKind<Row, Body>,
  caller: Caller,
  objectId: number,
  answer: number | null,
  body: Body,
): Promise<{ vote: Row; created: boolean } & Announced> {
  const rows = kind.rows(trx)
  // The question locked, then in the same round trip: the clock, the voter's default privacy, their liquid block
  // (where it counts without their answer), their current answer and the collection named.
  const collection = body.collection ?? null
  const named = collection !== null && isIdShaped(collection) ? collection : null
  const object = kind.kind === 'question' ? { question: objectId } : { choice: objectId }
  const read = await voteContextRepository(trx).lockedForAnswer<Row>(object, caller.id, kind.answers, named)
  if (!read) throw fieldError('object_id', invalidPk(objectId))
  const { question, now, defaultPrivate, block } = read
  // A likert answer's figures are the question's own, a pick's its choices', all read under their locks.
  const held = kind.figures === 'questions' ? new Map([[question.id, read.tally]]) : read.choices
  const refusal = voteRefusal(question, caller, now, kind.kind, objectId)
  if (refusal) throw refusal
  if (collection !== null && !read.collectionExists) throw fieldError('collection', invalidPk(collection))
  const existing = read.current
  const representative = !existing && block.representative?.target === kind.figures ? block.representative : null
  const tallies = await lockFigures(trx, kind, held, [
    objectId,
    ...(existing ? [kind.targetOf(existing)] : []),
    ...(representative ? [representative.targetId] : []),
  ])
  tallyOf(tallies, objectId)
  const isPrivate = body.private ?? defaultPrivate
  const values: AnswerValues = {
    value: answer,
    skipped: answer === null,
    private: isPrivate,
    liquid_weight: ownAnswerWeight(block, isPrivate),
    collection_id: body.collection ?? null,
    ...analyticsOf(body),
    modified_at: now,
  }
  // The whole change in one statement (below), but for an answer that stops being public: the user's latest public
  // time is then found again, which must see the answer written, so the user row is locked and counted after it.
  const countsAfter = locksUserFirst(existing ?? null, values)
  if (countsAfter) await lockUser(trx, caller.id)
  const writes: OperationNodeSource[] = existing
    ? [kind.replacing(rows, existing, values, objectId, body), rows.archiving(existing, now)]
    : [kind.inserting(rows, values, { question_id: question.id, user_id: caller.id, created_at: now }, objectId, body)]
  // Each figure row touched: its direct change, and the liquid weight it gains or loses.
  const changes = new Map<number, { removed: Answer | null; added: Answer | null; moves: LiquidMove[] }>()
  const change = (id: number) => changes.get(id) ?? changes.set(id, { removed: null, added: null, moves: [] }).get(id)!
  change(objectId).added = answerOfRow(values)
  change(objectId).moves.push(...answerMoves(null, values))
  if (existing) {
    change(kind.targetOf(existing)).removed = answerOfRow(existing)
    change(kind.targetOf(existing)).moves.push(...answerMoves(existing, null))
  } else if (representative) {
    const left = shiftingRepresentative(trx, { ...block, representative }, -1)!
    if (left.query) writes.push(left.query)
    change(representative.targetId).moves.push(left.move)
  }
  for (const id of [...changes.keys()].sort((a, b) => a - b)) {
    const { removed, added, moves } = changes.get(id)!
    writes.push(storingAnswerChange(trx, kind.figures, id, tallyOf(tallies, id), removed, added, moves))
  }
  const counted = countingAnswerWritten(trx, caller.id, kind.kind, existing ?? null, values, now)
  // The tags wait for the user row (the lock order of every answer: question, user, tags).
  const tags = !existing && kind.countsTagVotes ? countingTagVotes(question.id, 1, sql`SELECT FROM counted`) : null
  const vote = await writeAnswer<Row>(trx, writes, countsAfter ? null : counted, tags)
  if (countsAfter) await counted.execute()
  // A private answer carries nobody's vote: it tells nobody anything. Nobody's vote goes through a voter with no
  // unanswered users in their block (intree 0): no statement is needed to find that out.
  const notified =
    !existing && (answer !== null || kind.skipNotifies) && !vote.private && block.intree > 0
      ? await notificationEvents.delegateAnswered(trx, caller.id, question.id)
      : 0
  return { vote, created: !existing, questionId: question.id, notified }
}

/**
 * Runs an answer's writes as one statement, in the order the lock order needs: the first write is the answer
 * (returned), the others follow in any order except the tags, which wait for the user row (`counted`).
 */
async function writeAnswer<Row>(
  trx: Transaction<Database>,
  [answer, ...others]: OperationNodeSource[],
  counted: OperationNodeSource | null,
  tags: RawBuilder<unknown> | null,
): Promise<Row> {
  const steps = [
    sql`answer AS (${answer})`,
    ...others.map((write, i) => sql`${sql.raw(`write_${i}`)} AS (${write})`),
    ...(counted ? [sql`counted AS (${counted})`] : []),
    ...(tags ? [sql`tags AS (${tags})`] : []),
  ]
  const { rows } = await sql<Row>`WITH ${sql.join(steps)} SELECT * FROM answer`.execute(trx)
  return rows[0]
}

/** Edits an answer (see `editAnswer`). */
export async function editAnswerById<Row extends AnswerRow, Body extends AnswerBody>(
  db: Kysely<Database>,
  kind: AnyKind<Row, Body>,
  voteId: number,
  patch: AnswerPatch & { value?: number | null },
): Promise<Row> {
  const answer = answerOf(patch, 'edit')
  if (patch.collection !== undefined && patch.collection !== null) existingIdShape('collection', patch.collection)
  const called = await editAnswerCall<Row>(db, kind.kind === 'choice', voteId, {
    value: answer,
    unskip: patch.skipped === false,
    importance: patch.importance,
    private: patch.private,
    collection: patch.collection,
  })
  switch (called.outcome) {
    case 'edited':
      announce(db, { questionId: called.vote!.question_id, notified: 0 })
      return called.vote!
    case 'missing':
      throw NotFound()
    case 'value_required':
      throw fieldError('value', 'This field is required.')
    case 'not_open':
    case 'closed':
      throw namedWindowRefusal(called.outcome, 'value')
    case 'collection':
      throw fieldError('collection', invalidPk(patch.collection!))
    case 'general':
      // An answer going private: its author's latest public answer is found again here.
      break
  }
  const work = async (trx: Transaction<Database>) =>
    editAnswer(trx, kind.rows(trx), await lockAnswer(trx, kind, voteId), answer, patch, kind.kind)
  const edited = await refusingViolations(() => db.transaction().execute(work), raceRefusals(kind.uniqueSet, null, patch.collection))
  announce(db, { questionId: edited.question_id, notified: 0 })
  return edited
}

/** Withdraws an answer: it moves to the history and stops counting, inside the voting window only. */
export async function withdrawAnswer<Row extends AnswerRow, Body extends AnswerBody>(
  db: Kysely<Database>,
  kind: AnyKind<Row, Body>,
  voteId: number,
): Promise<void> {
  // One call, unless the answer carried others' votes: then its delegators are told, on the general path below.
  const called = await withdrawAnswerCall(db, kind.kind === 'choice', voteId)
  if (called.outcome === 'missing') throw NotFound()
  if (called.outcome === 'not_open' || called.outcome === 'closed') throw namedWindowRefusal(called.outcome, 'non_field_errors')
  if (called.outcome === 'withdrawn') return announce(db, { questionId: called.question, notified: 0 })
  const withdrawn = await db.transaction().execute(async (trx): Promise<Announced> => {
    const rows = kind.rows(trx)
    // The block the answer carried (or just the user, for a private one) goes where their chain leads now.
    const { question, vote, tally, target, now, block: read } = await lockAnswer(trx, kind, voteId, true)
    const block = read!
    const refusal = windowRefusal(question, now, 'non_field_errors')
    if (refusal) throw refusal
    const representative = block.representative?.target === kind.figures ? block.representative : null
    const tallies = await lockFigures(trx, kind, new Map([[target.id, tally]]), representative ? [representative.targetId] : [])
    await rows.archive(vote, now)
    await rows.remove(vote.id)
    const changes = new Map<number, LiquidMove[]>([[target.id, answerMoves(vote, null)]])
    const joined = representative && (await shiftRepresentative(trx, { ...block, representative }, 1))
    if (joined) changes.set(joined.slot.targetId, [...(changes.get(joined.slot.targetId) ?? []), joined.move])
    for (const id of [...changes.keys()].sort((a, b) => a - b)) {
      const removed = id === target.id ? answerOfRow(vote) : null
      await applyAnswerChange(trx, kind.figures, id, tallyOf(tallies, id), removed, null, changes.get(id))
    }
    await countAnswerDeleted(trx, vote.user_id, kind.kind, vote)
    if (kind.countsTagVotes) await countTagVotes(trx, vote.question_id, -1)
    // A private answer cast nobody's vote: withdrawing it changes nothing for the delegators.
    const notified = vote.private ? 0 : await notificationEvents.delegateWithdrew(trx, vote.user_id, vote.question_id)
    return { questionId: vote.question_id, notified }
  })
  announce(db, withdrawn)
}

/**
 * The question of an answer, then the answer and the row carrying its figures, locked in that order (404 when
 * gone), with the clock and, for a withdrawal, the answerer's liquid block read under those locks.
 */
async function lockAnswer<Row extends AnswerRow, Body extends AnswerBody>(
  trx: Transaction<Database>,
  kind: AnyKind<Row, Body>,
  voteId: number,
  withBlock = false,
): Promise<LockedAnswer<Row> & { block: Block | null }> {
  const read = await voteContextRepository(trx).lockedAnswer<Row>(kind.answers, voteId, withBlock)
  if (!read) throw NotFound()
  const { question, vote, now, block } = read
  const targetId = kind.targetOf(vote)
  const held = kind.figures === 'questions' ? new Map([[question.id, read.tally]]) : new Map<number, Tally>()
  const tally = (await lockFigures(trx, kind, held, [targetId])).get(targetId)
  if (!tally) throw NotFound()
  return { question, vote, tally, target: { table: kind.figures, id: targetId }, now, block }
}

/** The figure rows' tallies: those the question's lock read, and the others locked now in id order. */
async function lockFigures<Row extends AnswerRow, Body extends AnswerBody>(
  trx: Transaction<Database>,
  kind: AnyKind<Row, Body>,
  held: Map<number, Tally>,
  ids: number[],
): Promise<Map<number, Tally>> {
  const missing = ids.filter((id) => !held.has(id))
  const tallies = missing.length > 0 ? await lockTallies(trx, kind.figures, missing) : new Map<number, Tally>()
  for (const [id, tally] of held) tallies.set(id, tally)
  return tallies
}

/** The locked tally of a figure row, which the lock found (a choice deleted meanwhile names nothing). */
function tallyOf(tallies: Map<number, Tally>, id: number): Tally {
  const tally = tallies.get(id)
  if (!tally) throw fieldError('object_id', invalidPk(id))
  return tally
}
