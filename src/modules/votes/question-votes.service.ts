import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { castAnswer, editAnswerById, withdrawAnswer, type AnswerKind } from './answer-core.ts'
import type { QuestionVoteRow } from './question-votes.repository.ts'
import type { QuestionVoteBody, QuestionVotePatch } from './votes.schemas.ts'

/**
 * Answers to likert questions, counted on the question itself, with the question's tags' vote counts beside.
 * Importance belongs to these answers only: a new answer keeps the question's importance unless given.
 */
const questionAnswers: AnswerKind = { kind: 'question', uniqueSet: 'question', answerCall: 'cast_likert' }

/** A new answer, or one replacing the caller's current answer (which moves to the history). */
export function castQuestionVote(
  db: Kysely<Database>,
  caller: Caller,
  body: QuestionVoteBody,
): Promise<{ vote: QuestionVoteRow; created: boolean }> {
  return castAnswer<QuestionVoteRow>(db, questionAnswers, caller, body)
}

/** Edits a vote; importance is the question answers' own field. */
export function editQuestionVote(db: Kysely<Database>, voteId: number, patch: QuestionVotePatch): Promise<QuestionVoteRow> {
  return editAnswerById<QuestionVoteRow>(db, questionAnswers, voteId, patch)
}

/** Withdraws a vote: it moves to the history and stops counting, inside the voting window only. */
export function withdrawQuestionVote(db: Kysely<Database>, voteId: number): Promise<void> {
  return withdrawAnswer(db, questionAnswers, voteId)
}
