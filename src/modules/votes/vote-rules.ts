import type { Caller } from '../../core/caller.ts'
import { fieldError, type ApiError, invalidPk } from '../../core/errors.ts'

/** Who may answer a question, and when: pure rules over the question row as read under lock. */
export interface VotableQuestion {
  id: number
  user_id: number
  subtype: string
  publish: boolean
  start_at: Date | null
  end_at: Date | null
}

/** An unpublished question exists only for its author and staff, as on the read side. */
export function canSee(question: { publish: boolean; user_id: number }, caller: Caller): boolean {
  return question.publish || question.user_id === caller.id || caller.isStaff
}

export const NOT_OPEN = 'Voting on this question is not open yet.'
export const CLOSED = 'Voting on this question is closed.'
const ANSWERED_BY_CHOICE = 'This question is answered by choosing one of its choices: vote on the choice.'
const NOT_MULTIPLE_CHOICE = 'This choice belongs to a question that is not multiple choice.'

/** A refusal the database named (the one-call answers, migrations 029, 030 and 032), as `voteRefusal` words it. */
export type NamedRefusal = 'missing' | 'mcq' | 'not_mcq' | 'not_open' | 'closed' | 'collection'

export function namedRefusal(refusal: NamedRefusal, objectId: number, collection: number | null | undefined): ApiError {
  switch (refusal) {
    case 'missing':
      return fieldError('object_id', invalidPk(objectId))
    case 'mcq':
      return fieldError('object_id', ANSWERED_BY_CHOICE)
    case 'not_mcq':
      return fieldError('object_id', NOT_MULTIPLE_CHOICE)
    case 'not_open':
      return fieldError('object_id', NOT_OPEN)
    case 'closed':
      return fieldError('object_id', CLOSED)
    case 'collection':
      return fieldError('collection', invalidPk(collection))
  }
}

/** The voting window [start_at, end_at): refusals name `field`, the object the client voted on. */
export function windowRefusal(question: VotableQuestion, now: Date, field: string): ApiError | null {
  if (question.start_at && now < question.start_at) return fieldError(field, NOT_OPEN)
  if (question.end_at && now >= question.end_at) return fieldError(field, CLOSED)
  return null
}

/** A window refusal the database named (a withdrawal in one call, migration 033), as `windowRefusal` words it. */
export function namedWindowRefusal(outcome: 'not_open' | 'closed', field: string): ApiError {
  return fieldError(field, outcome === 'closed' ? CLOSED : NOT_OPEN)
}

/**
 * Why `caller` may not answer the question through the given kind of vote right now, or null.
 * Likert questions take question votes; multiple-choice ones take votes on their choices.
 */
export function voteRefusal(
  question: VotableQuestion | undefined,
  caller: Caller,
  now: Date,
  kind: 'question' | 'choice',
  objectId: number,
): ApiError | null {
  if (!question || !canSee(question, caller)) return fieldError('object_id', invalidPk(objectId))
  if (kind === 'question' && question.subtype === 'mcq') {
    return fieldError('object_id', ANSWERED_BY_CHOICE)
  }
  if (kind === 'choice' && question.subtype !== 'mcq') {
    return fieldError('object_id', NOT_MULTIPLE_CHOICE)
  }
  return windowRefusal(question, now, 'object_id')
}
