import { fieldError, invalidPk } from '../../core/errors.ts'

/** Reading what a vote body means, apart from any storage. */

const MAX_ID = 2_147_483_647
/** Analytics strings are cut here rather than refused: losing an answer over a long referrer URL helps nobody. */
export const ANALYTICS_MAX_LENGTH = 1000

export const ANALYTICS_FIELDS = [
  'analytics_interface',
  'analytics_os',
  'analytics_browser',
  'analytics_parent_url',
  'analytics_location',
] as const
export type AnalyticsField = (typeof ANALYTICS_FIELDS)[number]
export type Analytics = Record<AnalyticsField, string | null>

/** DRF's message for a related id that names nothing. */

/** An id that can name a row, or the DRF refusal for `field`. */
/** Whether a value could be a row's id (an integer in the id range). */
export function isIdShaped(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= MAX_ID
}

export function existingIdShape(field: string, value: number): number {
  if (!isIdShaped(value)) throw fieldError(field, invalidPk(value))
  return value
}

interface AnswerFields {
  value?: number | null
  skipped?: boolean
}

/**
 * The answer of a body: a rating 1..5, null for a skip (`value: null`, or no value with `skipped: true`),
 * or undefined when an edit leaves the answer as it is. A new vote must say one or the other.
 */
export function answerOf(body: AnswerFields, mode: 'new' | 'edit'): number | null | undefined {
  if (body.value === undefined) {
    if (body.skipped === true) return null
    if (mode === 'new') throw fieldError('value', 'This field is required.')
    return undefined
  }
  if (body.value === null) {
    if (body.skipped === false) throw fieldError('value', 'This field may not be null.')
    return null
  }
  if (body.skipped === true) throw fieldError('skipped', 'A vote with a value cannot be skipped.')
  return body.value
}

/** The analytics strings of a body, cut to length; empty or absent ones are stored as null. */
export function analyticsOf(body: Partial<Record<AnalyticsField, string | null>>): Analytics {
  const out = {} as Analytics
  for (const field of ANALYTICS_FIELDS) {
    const value = body[field]
    out[field] = typeof value === 'string' && value !== '' ? cut(value) : null
  }
  return out
}

/** Cut on characters, not UTF-16 units, so no half of a surrogate pair is left behind. */
function cut(text: string): string {
  return text.length <= ANALYTICS_MAX_LENGTH ? text : Array.from(text).slice(0, ANALYTICS_MAX_LENGTH).join('')
}
