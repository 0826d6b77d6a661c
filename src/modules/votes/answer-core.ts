import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Db } from '../../db/types.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, invalidPk, fieldError } from '../../core/errors.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { applyAnswerChange, type LiquidMove } from '../../engines/figures/apply.ts'
import { lockTallies } from '../../engines/figures/figures.repository.ts'
import type { Answer, Tally } from '../../engines/statistics/tally.ts'
import { countAnswerDeleted, countAnswerWritten, countTagVotes } from '../../engines/figures/counters.repository.ts'
import { answerMoves, ownAnswerWeight, readBlock, shiftRepresentative } from '../../engines/liquid/liquid.answers.ts'
import { notificationEvents } from '../../engines/notifications/notification-events.ts'
import { editAnswer, type AnswerPatch, type EditedRows, type LockedAnswer, type EditableAnswer } from './answer-edit.ts'
import { checkCollection, raceRefusals } from './vote-checks.ts'
import { voteContextRepository } from './vote-context.repository.ts'
import { analyticsOf, answerOf, existingIdShape, type Analytics, type AnalyticsField } from './vote-input.ts'
import { voteRefusal, windowRefusal, type VotableQuestion } from './vote-rules.ts'
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
  current(userId: number, questionId: number): Promise<Row | undefined>
  findById(id: number): Promise<Row | undefined>
  lockById(id: number): Promise<Row | undefined>
  remove(id: number): Promise<void>
}

/** The question locked, with the figure rows its lock read (the question's own tally, for a likert question). */
export interface LockedQuestion {
  question: VotableQuestion
  figures: Map<number, Tally>
}

/** What differs between the two kinds of answer. */
export interface AnswerKind<Row extends AnswerRow, Body extends AnswerBody, Rows extends AnswerRows<Row>> {
  kind: 'question' | 'choice'
  /** The table whose rows carry the figures the answers count in. */
  figures: 'questions' | 'question_choices'
  /** The unique set a lost race names (`The fields ..., user must make a unique set.`). */
  uniqueSet: string
  rows(db: Db): Rows
  /** The figure row an answer counts in. */
  targetOf(vote: Row): number
  /** The question of the object voted on; undefined when it names nothing. */
  questionOf(rows: Rows, objectId: number): Promise<number | undefined>
  lockQuestion(rows: Rows, questionId: number): Promise<LockedQuestion | undefined>
  /** Writes a first answer. */
  insert(rows: Rows, values: AnswerValues, first: FirstAnswer, objectId: number, body: Body): Promise<Row>
  /** Writes an answer over the current one (already in the history). */
  replace(rows: Rows, existing: Row, values: AnswerValues, objectId: number, body: Body): Promise<Row>
  /** Whether a first skip tells the delegators too. */
  skipNotifies: boolean
  /** Whether answers count in the question's tags' vote counts. */
  countsTagVotes: boolean
}

type AnyKind<Row extends AnswerRow, Body extends AnswerBody> = AnswerKind<Row, Body, AnswerRows<Row>>

/** A new answer, or one replacing the caller's current answer (which moves to the history). */
export async function castAnswer<Row extends AnswerRow, Body extends AnswerBody>(
  db: Kysely<Database>,
  kind: AnyKind<Row, Body>,
  caller: Caller,
  body: Body,
): Promise<{ vote: Row; created: boolean }> {
  const objectId = existingIdShape('object_id', body.object_id)
  const answer = answerOf(body, 'new') as number | null
  const work = (trx: Transaction<Database>) => castIn(trx, kind, caller, objectId, answer, body)
  return refusingViolations(() => db.transaction().execute(work), raceRefusals(kind.uniqueSet, objectId, body.collection))
}

async function castIn<Row extends AnswerRow, Body extends AnswerBody>(
  trx: Transaction<Database>,
  kind: AnyKind<Row, Body>,
  caller: Caller,
  objectId: number,
  answer: number | null,
  body: Body,
): Promise<{ vote: Row; created: boolean }> {
  const rows = kind.rows(trx)
  const context = voteContextRepository(trx)
  const questionId = await kind.questionOf(rows, objectId)
  const locked = questionId === undefined ? undefined : await kind.lockQuestion(rows, questionId)
  if (!locked) throw fieldError('object_id', invalidPk(objectId))
  const { question } = locked
  // The clock, the voter's default privacy and their liquid block (where it counts without their answer), in one read.
  const { now, defaultPrivate, block } = await context.forAnswer(caller.id, question.id)
  const refusal = voteRefusal(question, caller, now, kind.kind, objectId)
  if (refusal) throw refusal
  await checkCollection(context, body.collection)
  const existing = await rows.current(caller.id, question.id)
  const representative = !existing && block.representative?.target === kind.figures ? block.representative : null
  const tallies = await lockFigures(trx, kind, locked.figures, [
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
  let vote: Row
  if (existing) {
    await rows.archive(existing, now)
    vote = await kind.replace(rows, existing, values, objectId, body)
  } else {
    vote = await kind.insert(rows, values, { question_id: question.id, user_id: caller.id, created_at: now }, objectId, body)
  }
  // Each figure row touched: its direct change, and the liquid weight it gains or loses.
  const changes = new Map<number, { removed: Answer | null; added: Answer | null; moves: LiquidMove[] }>()
  const change = (id: number) => changes.get(id) ?? changes.set(id, { removed: null, added: null, moves: [] }).get(id)!
  change(objectId).added = answerOfRow(vote)
  change(objectId).moves.push(...answerMoves(null, vote))
  if (existing) {
    change(kind.targetOf(existing)).removed = answerOfRow(existing)
    change(kind.targetOf(existing)).moves.push(...answerMoves(existing, null))
  } else if (representative) {
    const left = (await shiftRepresentative(trx, { ...block, representative }, -1))!
    change(representative.targetId).moves.push(left.move)
  }
  for (const id of [...changes.keys()].sort((a, b) => a - b)) {
    const { removed, added, moves } = changes.get(id)!
    await applyAnswerChange(trx, kind.figures, id, tallyOf(tallies, id), removed, added, moves)
  }
  await countAnswerWritten(trx, caller.id, kind.kind, existing ?? null, vote, now)
  if (!existing && kind.countsTagVotes) await countTagVotes(trx, question.id, 1)
  // A private answer carries nobody's vote: it tells nobody anything.
  if (!existing && (answer !== null || kind.skipNotifies) && !vote.private) {
    await notificationEvents.delegateAnswered(trx, caller.id, question.id)
  }
  return { vote, created: !existing }
}

/** Edits an answer (see `editAnswer`). */
export async function editAnswerById<Row extends AnswerRow, Body extends AnswerBody>(
  db: Kysely<Database>,
  kind: AnyKind<Row, Body>,
  voteId: number,
  patch: AnswerPatch & { value?: number | null },
): Promise<Row> {
  const answer = answerOf(patch, 'edit')
  const work = async (trx: Transaction<Database>) =>
    editAnswer(trx, kind.rows(trx), await lockAnswer(trx, kind, voteId), answer, patch, kind.kind)
  return refusingViolations(() => db.transaction().execute(work), raceRefusals(kind.uniqueSet, null, patch.collection))
}

/** Withdraws an answer: it moves to the history and stops counting, inside the voting window only. */
export async function withdrawAnswer<Row extends AnswerRow, Body extends AnswerBody>(
  db: Kysely<Database>,
  kind: AnyKind<Row, Body>,
  voteId: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const rows = kind.rows(trx)
    const { question, vote, tally, target, now } = await lockAnswer(trx, kind, voteId)
    const refusal = windowRefusal(question, now, 'non_field_errors')
    if (refusal) throw refusal
    // The block the answer carried (or just the user, for a private one) goes where their chain leads now.
    const block = await readBlock(trx, vote.question_id, vote.user_id)
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
    if (!vote.private) await notificationEvents.delegateWithdrew(trx, vote.user_id, vote.question_id)
  })
}

/** The question of an answer, then the answer and the row carrying its figures, locked in that order (404 when gone). */
async function lockAnswer<Row extends AnswerRow, Body extends AnswerBody>(
  trx: Transaction<Database>,
  kind: AnyKind<Row, Body>,
  voteId: number,
): Promise<LockedAnswer<Row>> {
  const rows = kind.rows(trx)
  const found = await rows.findById(voteId)
  if (!found) throw NotFound()
  const locked = await kind.lockQuestion(rows, found.question_id)
  const vote = locked && (await rows.lockById(voteId))
  if (!locked || !vote) throw NotFound()
  const targetId = kind.targetOf(vote)
  const tally = (await lockFigures(trx, kind, locked.figures, [targetId])).get(targetId)
  if (!tally) throw NotFound()
  const target = { table: kind.figures, id: targetId }
  return { question: locked.question, vote, tally, target, now: await voteContextRepository(trx).now() }
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
