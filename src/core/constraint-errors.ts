import { NoResultError } from 'kysely'
import { ApiError, ValidationFailed, type FieldErrors } from './errors.ts'

/**
 * Unique constraints a client can run into, by name: the field and the message the route gives when it finds
 * the value taken itself, so a request that lost a race to the same value answers exactly what it would
 * have answered a moment later.
 */
const UNIQUE_FIELDS: Record<string, [field: string, message: string]> = {
  users_username_unique: ['username', 'A user with that username already exists.'],
  users_email_unique: ['email', 'A user with that email address already exists.'],
  push_devices_unique: ['registration_id', 'A device with this registration id already exists.'],
  groups_slug_key: ['slug', 'group with this slug already exists.'],
}

/** The constraint a PostgreSQL error names: a field of the error (pg, PGlite), else its message. */
function constraintName(error: { constraint?: unknown; message?: unknown }): string | null {
  if (typeof error.constraint === 'string' && error.constraint) return error.constraint
  const match = /constraint "([^"]+)"/.exec(String(error.message ?? ''))
  return match ? match[1] : null
}

/**
 * A database refusal that a client's request caused (a row that lost a race for a unique value, a row deleted
 * meanwhile, a value out of a column's range) reaching the central handler: answered as the client's error,
 * never as a 500. Routes should refuse such input themselves, naming the field; this is the last line.
 */
export function constraintError(error: unknown): ApiError | null {
  // A row read a moment ago and gone when the request wrote it: deleted meanwhile, as a later request would see.
  if (error instanceof NoResultError || (error as { name?: unknown } | null)?.name === 'NoResultError')
    return new ApiError(404, { detail: 'Not found.' })
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || code.length !== 5) return null
  switch (code) {
    case '23505': {
      // unique_violation
      const known = UNIQUE_FIELDS[constraintName(error as object) ?? '']
      if (known) return new ApiError(400, { [known[0]]: [known[1]] })
      return new ApiError(400, { non_field_errors: ['An object with these values already exists.'] })
    }
    case '23503': // foreign_key_violation: the row referred to is gone
      return new ApiError(400, { non_field_errors: ['A related object does not exist.'] })
    case '22003': // numeric_value_out_of_range
    case '22P02': // invalid_text_representation
    case '22007': // invalid_datetime_format
    case '22008': // datetime_field_overflow
    case '22021': // character_not_in_repertoire
    case '22001': // string_data_right_truncation
      return new ApiError(400, { non_field_errors: ['Invalid value.'] })
    default:
      return null
  }
}

type Refusal = FieldErrors | ((constraint: string) => FieldErrors | undefined)

/** What a write answers when a constraint stops it: by kind of violation, or by the constraint's name. */
export interface Refusals {
  /** 23505: a unique index holds the value already (a race to the same value). */
  unique?: Refusal
  /** 23503: a row referred to is gone (deleted meanwhile). */
  missing?: Refusal
  /** 23514: a check constraint refused the row. */
  check?: Refusal
  /** Any of the three, by the constraint's name; a name not listed goes on to the central handler. */
  named?: Record<string, FieldErrors>
}

const REFUSAL_OF_CODE = { '23505': 'unique', '23503': 'missing', '23514': 'check' } as const

/** The SQLSTATE of a database error (pg, PGlite), if it is one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/**
 * Runs `work`; when a constraint listed in `refusals` stops it, answers that constraint's 400 instead. The
 * constraints, not a read before the write, keep duplicates and dangling rows out: a write that lost a race
 * answers exactly what it would have answered a moment later. Anything else is rethrown.
 */
export async function refusingViolations<T>(work: () => Promise<T>, refusals: Refusals): Promise<T> {
  try {
    return await work()
  } catch (error) {
    const code = sqlState(error)
    const kind = code && Object.hasOwn(REFUSAL_OF_CODE, code) ? REFUSAL_OF_CODE[code as keyof typeof REFUSAL_OF_CODE] : null
    if (!kind) throw error
    const constraint = constraintName(error as object) ?? ''
    const named = refusals.named && Object.hasOwn(refusals.named, constraint) ? refusals.named[constraint] : undefined
    const refusal = refusals[kind]
    const errors = named ?? (typeof refusal === 'function' ? refusal(constraint) : refusal)
    if (errors) throw ValidationFailed(errors)
    throw error
  }
}
