import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, invalidPk, fieldError } from '../../core/errors.ts'
import { applyAnswerChange, lockTallies, type LiquidMove } from '../statistics/apply.ts'
import type { Answer, Tally } from '../statistics/compute/tally.ts'
import { countAnswerDeleted, countAnswerWritten } from '../statistics/counters.ts'
import { answerMoves, ownAnswerWeight, readBlock, shiftRepresentative } from '../liquid/liquid.answers.ts'
import { editAnswer, type LockedAnswer } from './answer-edit.ts'
import { choiceVotesRepository, type ChoiceVoteRow } from './choice-votes.repository.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import { checkCollection, raceRefusals } from './vote-checks.ts'
import { voteContextRepository } from './vote-context.repository.ts'
import { analyticsOf, answerOf, existingIdShape } from './vote-input.ts'
import { voteRefusal, windowRefusal } from './vote-rules.ts'
import { answerOfRow } from './votes.mapper.ts'
import type { ChoiceVoteBody, ChoiceVotePatch } from './votes.schemas.ts'
import { notificationEvents } from '../notifications/notification-events.ts'

/**
 * Answers to multiple-choice questions: a vote on the chosen choice. A user has one current pick per
 * question; picking another choice replaces it (the earlier pick moves to the history and leaves its
 * choice's figures). Lock order: the question, then its choices in id order, then the user.
 */

/** The locked tally of a choice, which the lock found (a choice deleted meanwhile names nothing). */
function tallyOf(tallies: Map<number, Tally>, choiceId: number): Tally {
  const tally = tallies.get(choiceId)
  if (!tally) throw fieldError('object_id', invalidPk(choiceId))
  return tally
}

export async function castChoiceVote(
  db: Kysely<Database>,
  caller: Caller,
  body: ChoiceVoteBody,
): Promise<{ vote: ChoiceVoteRow; created: boolean }> {
  const choiceId = existingIdShape('object_id', body.object_id)
  const answer = answerOf(body, 'new') as number | null
  const work = (trx: Transaction<Database>) => castIn(trx, caller, choiceId, answer, body)
  return refusingViolations(() => db.transaction().execute(work), raceRefusals('question, choice', choiceId, body.collection))
}

async function castIn(trx: Transaction<Database>, caller: Caller, choiceId: number, answer: number | null, body: ChoiceVoteBody) {
  const repository = choiceVotesRepository(trx)
  const context = voteContextRepository(trx)
  const questionId = await repository.questionOfChoice(choiceId)
  const question = questionId === undefined ? undefined : await repository.lockQuestion(questionId)
  if (!question) throw fieldError('object_id', invalidPk(choiceId))
  // The clock, the voter's default privacy and their liquid block (where it counts without their answer), in one read.
  const { now, defaultPrivate, block } = await context.forAnswer(caller.id, question.id)
  const refusal = voteRefusal(question, caller, now, 'choice', choiceId)
  if (refusal) throw refusal
  await checkCollection(context, body.collection)
  const existing = await repository.current(caller.id, question.id)
  const representative = !existing && block.representative?.target === 'question_choices' ? block.representative : null
  const tallies = await lockTallies(trx, 'question_choices', [
    choiceId,
    ...(existing ? [existing.choice_id] : []),
    ...(representative ? [representative.targetId] : []),
  ])
  tallyOf(tallies, choiceId)
  const isPrivate = body.private ?? defaultPrivate
  const ownWeight = ownAnswerWeight(block, isPrivate)
  const answerValues = {
    choice_id: choiceId,
    value: answer,
    skipped: answer === null,
    private: isPrivate,
    liquid_weight: ownWeight,
    collection_id: body.collection ?? null,
    ...analyticsOf(body),
    modified_at: now,
  }
  let vote: ChoiceVoteRow
  if (existing) {
    await repository.archive(existing, now)
    vote = await repository.update(existing.id, answerValues)
  } else {
    vote = await repository.insert({ ...answerValues, question_id: question.id, user_id: caller.id, created_at: now })
  }
  // Each choice row touched: its direct change, and the liquid weight it gains or loses.
  const changes = new Map<number, { removed: Answer | null; added: Answer | null; moves: LiquidMove[] }>()
  const change = (id: number) => changes.get(id) ?? changes.set(id, { removed: null, added: null, moves: [] }).get(id)!
  change(choiceId).added = answerOfRow(vote)
  change(choiceId).moves.push(...answerMoves(null, vote))
  if (existing) {
    change(existing.choice_id).removed = answerOfRow(existing)
    change(existing.choice_id).moves.push(...answerMoves(existing, null))
  } else if (representative) {
    const left = (await shiftRepresentative(trx, { ...block, representative }, -1))!
    change(representative.targetId).moves.push(left.move)
  }
  for (const id of [...changes.keys()].sort((a, b) => a - b)) {
    const { removed, added, moves } = changes.get(id)!
    await applyAnswerChange(trx, 'question_choices', id, tallyOf(tallies, id), removed, added, moves)
  }
  await countAnswerWritten(trx, caller.id, 'choice', existing ?? null, vote, now)
  // A private answer carries nobody's vote: it tells nobody anything.
  if (!existing && !vote.private) await notificationEvents.delegateAnswered(trx, caller.id, question.id)
  return { vote, created: !existing }
}

/** The question of a vote and then the vote and its choice, locked in that order (404 when gone). */
async function lockVote(trx: Transaction<Database>, voteId: number): Promise<LockedAnswer<ChoiceVoteRow>> {
  const repository = choiceVotesRepository(trx)
  const found = await repository.findById(voteId)
  if (!found) throw NotFound()
  const question = await repository.lockQuestion(found.question_id)
  const vote = question && (await repository.lockById(voteId))
  if (!question || !vote) throw NotFound()
  const tally = (await lockTallies(trx, 'question_choices', [vote.choice_id])).get(vote.choice_id)
  if (!tally) throw NotFound()
  const target = { table: 'question_choices' as const, id: vote.choice_id }
  return { question, vote, tally, target, now: await voteContextRepository(trx).now() }
}

/** Edits a pick (see `editAnswer`). */
export async function editChoiceVote(db: Kysely<Database>, voteId: number, patch: ChoiceVotePatch): Promise<ChoiceVoteRow> {
  const answer = answerOf(patch, 'edit')
  const work = async (trx: Transaction<Database>) =>
    // A pick has no importance, whatever the body says.
    editAnswer(trx, choiceVotesRepository(trx), await lockVote(trx, voteId), answer, { ...patch, importance: undefined }, 'choice')
  return refusingViolations(() => db.transaction().execute(work), raceRefusals('question, choice', null, patch.collection))
}

/** Withdraws a pick: it moves to the history and stops counting, inside the voting window only. */
export async function withdrawChoiceVote(db: Kysely<Database>, voteId: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = choiceVotesRepository(trx)
    const { question, vote, tally, now } = await lockVote(trx, voteId)
    const refusal = windowRefusal(question, now, 'non_field_errors')
    if (refusal) throw refusal
    // The block the pick carried (or just the user, for a private one) goes where their chain leads now.
    const block = await readBlock(trx, vote.question_id, vote.user_id)
    const representative = block.representative?.target === 'question_choices' ? block.representative : null
    const tallies =
      representative && representative.targetId !== vote.choice_id
        ? await lockTallies(trx, 'question_choices', [representative.targetId])
        : new Map<number, Tally>()
    tallies.set(vote.choice_id, tally)
    await repository.archive(vote, now)
    await repository.remove(vote.id)
    const changes = new Map<number, LiquidMove[]>([[vote.choice_id, answerMoves(vote, null)]])
    const joined = representative && (await shiftRepresentative(trx, { ...block, representative }, 1))
    if (joined) changes.set(joined.slot.targetId, [...(changes.get(joined.slot.targetId) ?? []), joined.move])
    for (const id of [...changes.keys()].sort((a, b) => a - b)) {
      await applyAnswerChange(
        trx,
        'question_choices',
        id,
        tallyOf(tallies, id),
        id === vote.choice_id ? answerOfRow(vote) : null,
        null,
        changes.get(id),
      )
    }
    await countAnswerDeleted(trx, vote.user_id, 'choice', vote)
    // A private answer cast nobody's vote: withdrawing it changes nothing for the delegators.
    if (!vote.private) await notificationEvents.delegateWithdrew(trx, vote.user_id, vote.question_id)
  })
}
