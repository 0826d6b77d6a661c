export const PHONE_FORMAT = 'Enter the number in international format: + (or 00), the country code and the number, 8 to 15 digits in all.'
export const PHONE_TAKEN = 'This phone number is already verified by another account.'

/**
 * A phone number as E.164 (`+` and 8 to 15 digits), from the way people write it: spaces, dashes, dots
 * and brackets are dropped, a leading 00 means +, and the "(0)" of "+44 (0)20 ..." is a national
 * prefix that is not dialled from abroad. Without the country code a number is ambiguous: null.
 */
export function normalisePhone(raw: string): string | null {
  const match = /^(\+|00)([\d\s().-]+)$/.exec(raw.trim().replace(/\(0\)/g, ''))
  if (!match) return null
  const digits = match[2].replace(/[\s().-]/g, '')
  return /^[1-9]\d{7,14}$/.test(digits) ? `+${digits}` : null
}
