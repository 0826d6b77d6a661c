import { ValidationFailed, type FieldErrors } from '../../http/errors.ts'

/**
 * A write that loses a race hits a constraint instead of a check: a unique index (23505) or a row
 * deleted meanwhile (23503). Those become the 400 the check would have given; anything else goes on.
 */
export async function refusingConflicts<T>(
  work: () => Promise<T>,
  errors: { unique: FieldErrors; missing: (constraint: string) => FieldErrors },
): Promise<T> {
  try {
    return await work()
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string }
    if (code === '23505') throw ValidationFailed(errors.unique)
    if (code === '23503') throw ValidationFailed(errors.missing(constraint ?? ''))
    throw error
  }
}
