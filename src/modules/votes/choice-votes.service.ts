import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { castAnswer, editAnswerById, withdrawAnswer, type AnswerKind } from './answer-core.ts'
import type { ChoiceVoteRow } from './choice-votes.repository.ts'
import type { ChoiceVoteBody, ChoiceVotePatch } from './votes.schemas.ts'

/**
 * Answers to multiple-choice questions: a vote on the chosen choice, counted on the choice. A user has one
 * current pick per question; picking another choice replaces it (the earlier pick moves to the history and
 * leaves its choice's figures). A skipped pick is an answer too: the delegators hear of it.
 */
const choiceAnswers: AnswerKind = { kind: 'choice', uniqueSet: 'question, choice', answerCall: 'cast_pick' }

export function castChoiceVote(
  db: Kysely<Database>,
  caller: Caller,
  body: ChoiceVoteBody,
): Promise<{ vote: ChoiceVoteRow; created: boolean }> {
  return castAnswer<ChoiceVoteRow>(db, choiceAnswers, caller, body)
}

/** Edits a pick; a pick has no importance, whatever the body says. */
export function editChoiceVote(db: Kysely<Database>, voteId: number, patch: ChoiceVotePatch): Promise<ChoiceVoteRow> {
  return editAnswerById<ChoiceVoteRow>(db, choiceAnswers, voteId, { ...patch, importance: undefined })
}

/** Withdraws a pick: it moves to the history and stops counting, inside the voting window only. */
export function withdrawChoiceVote(db: Kysely<Database>, voteId: number): Promise<void> {
  return withdrawAnswer(db, choiceAnswers, voteId)
}
