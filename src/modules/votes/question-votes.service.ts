import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { castAnswer, editAnswerById, withdrawAnswer, type AnswerKind } from './answer-core.ts'
import { questionVotesRepository, type QuestionVoteRow } from './question-votes.repository.ts'
import type { QuestionVoteBody, QuestionVotePatch } from './votes.schemas.ts'

/**
 * Answers to likert questions, counted on the question itself (whose lock reads its tally), with the
 * question's tags' vote counts beside. Importance belongs to these answers only.
 */
const questionAnswers: AnswerKind<QuestionVoteRow, QuestionVoteBody, ReturnType<typeof questionVotesRepository>> = {
  kind: 'question',
  figures: 'questions',
  answers: 'question_votes',
  uniqueSet: 'question',
  rows: questionVotesRepository,
  targetOf: (vote) => vote.question_id,
  inserting: (rows, values, first, _questionId, body) => rows.inserting({ ...values, ...first, importance: body.importance ?? null }),
  // Importance belongs to the question rather than to one answer: a new answer keeps it unless given.
  replacing: (rows, existing, values, _questionId, body) =>
    rows.updating(existing.id, { ...values, importance: body.importance === undefined ? existing.importance : body.importance }),
  // A skip casts nobody's vote: the delegators hear of answers only.
  skipNotifies: false,
  countsTagVotes: true,
  answerCall: 'cast_likert',
}

/** A new answer, or one replacing the caller's current answer (which moves to the history). */
export function castQuestionVote(
  db: Kysely<Database>,
  caller: Caller,
  body: QuestionVoteBody,
): Promise<{ vote: QuestionVoteRow; created: boolean }> {
  return castAnswer(db, questionAnswers, caller, body)
}

/** Edits a vote; importance is the question answers' own field. */
export function editQuestionVote(db: Kysely<Database>, voteId: number, patch: QuestionVotePatch): Promise<QuestionVoteRow> {
  return editAnswerById(db, questionAnswers, voteId, patch)
}

/** Withdraws a vote: it moves to the history and stops counting, inside the voting window only. */
export function withdrawQuestionVote(db: Kysely<Database>, voteId: number): Promise<void> {
  return withdrawAnswer(db, questionAnswers, voteId)
}
