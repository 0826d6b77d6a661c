import { ValidationFailed, type FieldErrors } from '../../http/errors.ts'

/** The constraint a PostgreSQL error names when its SQLSTATE is `code` (23505 unique, 23514 check, 23503 foreign key). */
export function violated(error: unknown, code: string): string | null {
  const e = error as { code?: unknown; constraint?: unknown }
  return e && e.code === code && typeof e.constraint === 'string' ? e.constraint : null
}

/**
 * Runs `work`; when a constraint listed in `refusals` stops it, answers that constraint's 400 instead.
 * The constraints, not a read before the write, are what keep duplicates and bad rows out.
 */
export async function refusingViolations<T>(work: () => Promise<T>, refusals: Record<string, FieldErrors>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    for (const code of ['23505', '23514', '23503']) {
      const constraint = violated(error, code)
      if (constraint && refusals[constraint]) throw ValidationFailed(refusals[constraint])
    }
    throw error
  }
}
