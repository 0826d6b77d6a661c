import { ApiError } from './errors.ts'

/**
 * A database refusal that a client's request caused (a row that lost a race for a unique value, a row deleted
 * meanwhile, a value out of a column's range) reaching the central handler: answered as the client's error,
 * never as a 500. Routes should refuse such input themselves, naming the field; this is the last line.
 */
export function constraintError(error: unknown): ApiError | null {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || code.length !== 5) return null
  switch (code) {
    case '23505': // unique_violation
      return new ApiError(400, { non_field_errors: ['An object with these values already exists.'] })
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
