import { fieldError, invalidPk, NotFound, type ApiError } from '../../core/errors.ts'

/**
 * The refusals the answering functions name (cast_likert, cast_pick, edit_answer, withdraw_answer and the rules they
 * call: src/db/functions.generated.sql), each with the DRF error it answers. The rules themselves live in the
 * database only; test/votes/refusal-names.test.ts reads the names back from the functions' text.
 */
export const REFUSALS = ['missing', 'mcq', 'not_mcq', 'not_open', 'closed', 'collection', 'value_required'] as const
export type Refusal = (typeof REFUSALS)[number]

/** What a cast can be refused for. */
export type NamedRefusal = Exclude<Refusal, 'value_required'>
/** What an edit can be refused for. */
export type EditRefusal = Exclude<Refusal, 'mcq' | 'not_mcq'>
/** What a withdrawal can be refused for. */
export type WithdrawalRefusal = Extract<Refusal, 'missing' | 'not_open' | 'closed'>

const NOT_OPEN = 'Voting on this question is not open yet.'
const CLOSED = 'Voting on this question is closed.'

/**
 * Where a refusal points. A cast names the object voted on (`objectId`); an edit or a withdrawal names an answer by
 * its URL, so a missing one is a 404 (`objectId` null). The window refusals name `windowField`: `object_id` for a
 * cast, `value` for an edit, `non_field_errors` for a withdrawal.
 */
export interface RefusalPlace {
  objectId: number | null
  collection?: number | null
  windowField: string
}

export function refusalError(refusal: Refusal, place: RefusalPlace): ApiError {
  switch (refusal) {
    case 'missing':
      return place.objectId === null ? NotFound() : fieldError('object_id', invalidPk(place.objectId))
    case 'mcq':
      return fieldError('object_id', 'This question is answered by choosing one of its choices: vote on the choice.')
    case 'not_mcq':
      return fieldError('object_id', 'This choice belongs to a question that is not multiple choice.')
    case 'not_open':
      return fieldError(place.windowField, NOT_OPEN)
    case 'closed':
      return fieldError(place.windowField, CLOSED)
    case 'collection':
      return fieldError('collection', invalidPk(place.collection ?? null))
    case 'value_required':
      return fieldError('value', 'This field is required.')
  }
}
