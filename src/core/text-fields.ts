import type { FieldErrors } from './errors.ts'

/** Text fields arrive with loose whitespace; DRF's CharField trims them and refuses what is left empty. */
export function trimmed(value: string | undefined, field: string, errors: FieldErrors, allowBlank = false): string | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (!allowBlank && text === '') errors[field] = ['This field may not be blank.']
  return text
}
