import { ValidationFailed, type FieldErrors } from '../../http/errors.ts'

interface DatabaseError {
  code?: string
  constraint?: string
}

/**
 * A write that lost a race with another one hits a constraint instead of a check: a unique index (23505)
 * or a row deleted meanwhile (23503). Those become the 400 the check would have given; anything else
 * is rethrown.
 */
export async function refusingConstraintViolations<T>(
  work: () => Promise<T>,
  errors: { unique?: FieldErrors; missing?: (constraint: string) => FieldErrors },
): Promise<T> {
  try {
    return await work()
  } catch (error) {
    const { code, constraint } = error as DatabaseError
    if (code === '23505' && errors.unique) throw ValidationFailed(errors.unique)
    if (code === '23503' && errors.missing) throw ValidationFailed(errors.missing(constraint ?? ''))
    throw error
  }
}

export const invalidPk = (value: unknown) => `Invalid pk "${String(value)}" - object does not exist.`
