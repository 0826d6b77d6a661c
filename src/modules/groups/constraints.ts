import { ValidationFailed, type FieldErrors } from '../../http/errors.ts'

interface DatabaseError {
  code?: string
  constraint?: string
}

export const invalidPk = (value: unknown) => `Invalid pk "${String(value)}" - object does not exist.`

/** DRF's UniqueTogetherValidator message. */
export const uniqueSet = (...fields: string[]): FieldErrors => ({
  non_field_errors: [`The fields ${fields.join(', ')} must make a unique set.`],
})

export function databaseErrorOf(error: unknown): DatabaseError {
  return (error ?? {}) as DatabaseError
}

/**
 * Duplicates are made impossible by unique indexes, not by checks that race: a write that hits one
 * (23505), or a row deleted meanwhile (23503), becomes the 400 a check would have given.
 */
export async function refusingConstraintViolations<T>(
  work: () => Promise<T>,
  errors: {
    unique?: FieldErrors | ((constraint: string) => FieldErrors)
    missing?: (constraint: string) => FieldErrors
    check?: FieldErrors
  },
): Promise<T> {
  try {
    return await work()
  } catch (error) {
    const { code, constraint = '' } = databaseErrorOf(error)
    if (code === '23505' && errors.unique)
      throw ValidationFailed(typeof errors.unique === 'function' ? errors.unique(constraint) : errors.unique)
    if (code === '23503' && errors.missing) throw ValidationFailed(errors.missing(constraint))
    if (code === '23514' && errors.check) throw ValidationFailed(errors.check)
    throw error
  }
}

/** Text fields arrive with loose whitespace; DRF's CharField trims them and refuses what is left empty. */
export function trimmed(value: string | undefined, field: string, errors: FieldErrors, allowBlank = false): string | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (!allowBlank && text === '') errors[field] = ['This field may not be blank.']
  return text
}
