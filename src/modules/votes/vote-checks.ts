import type { FieldErrors } from '../../core/errors.ts'
import { invalidPk } from '../../core/errors.ts'

// Checks every kind of vote makes besides its own rules.

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
