import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, invalidPk, fieldError } from '../../core/errors.ts'
import { applyAnswerChange, type LiquidMove } from '../statistics/apply.ts'
import { countAnswerDeleted, countAnswerWritten, countTagVotes } from '../statistics/counters.ts'
import { editAnswer, type LockedAnswer } from './answer-edit.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { answerMoves, ownAnswerWeight, readBlock, shiftRepresentative } from '../liquid/liquid.answers.ts'
import { questionVotesRepository, type QuestionVoteRow } from './question-votes.repository.ts'
import { checkCollection, raceRefusals } from './vote-checks.ts'
import { voteContextRepository } from './vote-context.repository.ts'
import { analyticsOf, answerOf, existingIdShape } from './vote-input.ts'
import { voteRefusal, windowRefusal } from './vote-rules.ts'
import { answerOfRow } from './votes.mapper.ts'
import type { QuestionVoteBody, QuestionVotePatch } from './votes.schemas.ts'
import { notificationEvents } from '../notifications/notification-events.ts'

/**
 * Answers to likert questions. Every write runs in one transaction that locks the question row first,
 * so answers to one question are applied one after another and its figures move by exact deltas;
 * the user's counters and the tags' vote counts change in the same transaction.
 */

/** A new answer, or one replacing the caller's current answer (which moves to the history). */
export async function castQuestionVote(
  db: Kysely<Database>,
  caller: Caller,
  body: QuestionVoteBody,
): Promise<{ vote: QuestionVoteRow; created: boolean }> {
  const questionId = existingIdShape('object_id', body.object_id)
  const answer = answerOf(body, 'new') as number | null
  const work = (trx: Transaction<Database>) => castIn(trx, caller, questionId, answer, body)
  return refusingViolations(() => db.transaction().execute(work), raceRefusals('question', questionId, body.collection))
}

async function castIn(trx: Transaction<Database>, caller: Caller, questionId: number, answer: number | null, body: QuestionVoteBody) {
  const repository = questionVotesRepository(trx)
  const context = voteContextRepository(trx)
  const locked = await repository.lockQuestion(questionId)
  if (!locked) throw fieldError('object_id', invalidPk(questionId))
  // The clock, the voter's default privacy and their liquid block (where it counts without their answer), in one read.
  const { now, defaultPrivate, block } = await context.forAnswer(caller.id, questionId)
  const refusal = voteRefusal(locked.question, caller, now, 'question', questionId)
  if (refusal) throw refusal
  await checkCollection(context, body.collection)
  const existing = await repository.current(caller.id, questionId)
  const isPrivate = body.private ?? defaultPrivate
  const ownWeight = ownAnswerWeight(block, isPrivate)
  const answerValues = {
    value: answer,
    skipped: answer === null,
    private: isPrivate,
    liquid_weight: ownWeight,
    collection_id: body.collection ?? null,
    ...analyticsOf(body),
    modified_at: now,
  }
  let vote: QuestionVoteRow
  if (existing) {
    await repository.archive(existing, now)
    // Importance belongs to the question rather than to one answer: a new answer keeps it unless given.
    vote = await repository.update(existing.id, {
      ...answerValues,
      importance: body.importance === undefined ? existing.importance : body.importance,
    })
  } else {
    vote = await repository.insert({
      ...answerValues,
      question_id: questionId,
      user_id: caller.id,
      importance: body.importance ?? null,
      created_at: now,
    })
  }
  // Before: the caller's earlier answer with its weight, or their block at the answer it reached. After: their own answer.
  const moves: LiquidMove[] = answerMoves(existing ?? null, vote)
  if (!existing) {
    const left = await shiftRepresentative(trx, block, -1)
    if (left) moves.push(left.move)
  }
  await applyAnswerChange(trx, 'questions', questionId, locked.tally, existing ? answerOfRow(existing) : null, answerOfRow(vote), moves)
  await countAnswerWritten(trx, caller.id, 'question', existing ?? null, vote, now)
  if (!existing) await countTagVotes(trx, questionId, 1)
  // A private answer carries nobody's vote: it tells nobody anything.
  if (!existing && answer !== null && !vote.private) await notificationEvents.delegateAnswered(trx, caller.id, questionId)
  return { vote, created: !existing }
}

/** The question of a vote, locked, then the vote itself under that lock (404 when either is gone). */
async function lockVote(trx: Transaction<Database>, voteId: number): Promise<LockedAnswer<QuestionVoteRow>> {
  const repository = questionVotesRepository(trx)
  const found = await repository.findById(voteId)
  if (!found) throw NotFound()
  const locked = await repository.lockQuestion(found.question_id)
  const vote = locked && (await repository.lockById(voteId))
  if (!locked || !vote) throw NotFound()
  const target = { table: 'questions' as const, id: vote.question_id }
  return { question: locked.question, vote, tally: locked.tally, target, now: await voteContextRepository(trx).now() }
}

/** Edits a vote (see `editAnswer`); importance is the question answers' own field. */
export async function editQuestionVote(db: Kysely<Database>, voteId: number, patch: QuestionVotePatch): Promise<QuestionVoteRow> {
  const answer = answerOf(patch, 'edit')
  const work = async (trx: Transaction<Database>) =>
    editAnswer(trx, questionVotesRepository(trx), await lockVote(trx, voteId), answer, patch, 'question')
  return refusingViolations(() => db.transaction().execute(work), raceRefusals('question', null, patch.collection))
}

/** Withdraws a vote: it moves to the history and stops counting, inside the voting window only. */
export async function withdrawQuestionVote(db: Kysely<Database>, voteId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = questionVotesRepository(trx)
    const { question, vote, tally, now } = await lockVote(trx, voteId)
    const refusal = windowRefusal(question, now, 'non_field_errors')
    if (refusal) throw refusal
    // The block the answer carried (or just the user, for a private one) goes where their chain leads now.
    const block = await readBlock(trx, vote.question_id, vote.user_id)
    await repository.archive(vote, now)
    await repository.remove(vote.id)
    const moves = answerMoves(vote, null)
    const joined = await shiftRepresentative(trx, block, 1)
    if (joined) moves.push(joined.move)
    await applyAnswerChange(trx, 'questions', vote.question_id, tally, answerOfRow(vote), null, moves)
    await countAnswerDeleted(trx, vote.user_id, 'question', vote)
    await countTagVotes(trx, vote.question_id, -1)
    // A private answer cast nobody's vote: withdrawing it changes nothing for the delegators.
    if (!vote.private) await notificationEvents.delegateWithdrew(trx, vote.user_id, vote.question_id)
  })
}
