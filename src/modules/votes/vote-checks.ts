import type { FieldErrors } from '../../core/errors.ts'
import { existingIdShape } from './vote-input.ts'
import type { voteContextRepository } from './vote-context.repository.ts'
import { invalidPk, fieldError } from '../../core/errors.ts'

// Checks every kind of vote makes besides its own rules.

/** A collection named with an answer must exist: `Invalid pk "N" - object does not exist.` otherwise. */
export async function checkCollection(
  context: ReturnType<typeof voteContextRepository>,
  collection: number | null | undefined,
): Promise<void> {
  if (collection === null || collection === undefined) return
  existingIdShape('collection', collection)
  if (!(await context.collectionExists(collection))) throw fieldError('collection', invalidPk(collection))
}

/** What a lost race with another writer reads as: the refusal the checks would have given. */
export function raceRefusals(
  what: string,
  objectId: number | null,
  collection: number | null | undefined,
): { unique: FieldErrors; missing: (constraint: string) => FieldErrors } {
  return {
    unique: { non_field_errors: [`The fields ${what}, user must make a unique set.`] },
    missing: (constraint: string): FieldErrors =>
      constraint.includes('collection')
        ? { collection: [invalidPk(collection)] }
        : objectId === null
          ? { non_field_errors: ['The object voted on no longer exists.'] }
          : { object_id: [invalidPk(objectId)] },
  }
}
