/**
 * The one reader of numbers a client sends (path, query, form or JSON), with DRF's and Django's rules: an
 * integer is written in decimal digits with an optional sign and surrounding whitespace (no `0x10`, `1e3`,
 * `1_000` or `Infinity`), a number is a finite decimal (no `nan`, `inf`), and an integer column without its
 * own bounds holds PostgreSQL's int4 range, as Django's model fields validate it.
 */
export const INT4_MIN = -2147483648
export const INT4_MAX = 2147483647

/** The schema format of a comma-separated id list in a query (`id__in=1,2,3`), read by `readIdList`. */
export const ID_LIST_FORMAT = 'id-list'

/** Where a value came from: the messages differ (DRF serializer fields in bodies, Django form fields in filters). */
export type NumberSource = 'body' | 'query'

export interface Bounds {
  minimum?: number
  maximum?: number
}

export type NumberReading = { ok: true; value: number } | { ok: false; message: string }

const INTEGER_TEXT = /^\s*([-+]?)(\d+)\s*$/
const DECIMAL_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/
/** DRF refuses longer texts before reading them ("String value too large."). */
const MAX_TEXT_LENGTH = 1000

const invalidInteger = (source: NumberSource) => (source === 'query' ? 'Enter a whole number.' : 'A valid integer is required.')
const invalidNumber = (source: NumberSource) => (source === 'query' ? 'Enter a number.' : 'A valid number is required.')
const atMost = (limit: number) => `Ensure this value is less than or equal to ${limit}.`
const atLeast = (limit: number) => `Ensure this value is greater than or equal to ${limit}.`

function withinBounds(value: number, bounds: Required<Bounds>): NumberReading {
  if (value > bounds.maximum) return { ok: false, message: atMost(bounds.maximum) }
  if (value < bounds.minimum) return { ok: false, message: atLeast(bounds.minimum) }
  return { ok: true, value }
}

/** Text that spells an integer by DRF's rules (whatever its size). */
export function isIntegerText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_TEXT_LENGTH && INTEGER_TEXT.test(value)
}

/** An integer from text or a JSON number; bounds default to the int4 range. */
export function readInteger(raw: unknown, source: NumberSource, bounds: Bounds = {}): NumberReading {
  const limits = { minimum: bounds.minimum ?? INT4_MIN, maximum: bounds.maximum ?? INT4_MAX }
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw) || !Number.isInteger(raw)) return { ok: false, message: invalidInteger(source) }
    return withinBounds(raw, limits)
  }
  if (typeof raw !== 'string') return { ok: false, message: invalidInteger(source) }
  if (raw.length > MAX_TEXT_LENGTH) return { ok: false, message: 'String value too large.' }
  const match = INTEGER_TEXT.exec(raw)
  if (!match) return { ok: false, message: invalidInteger(source) }
  const [, sign, digits] = match
  const significant = digits.replace(/^0+(?=\d)/, '')
  // Past 15 digits a double is no longer exact; such a number is out of any bound this service has.
  if (significant.length > 15) return { ok: false, message: sign === '-' ? atLeast(limits.minimum) : atMost(limits.maximum) }
  const value = Number(significant) * (sign === '-' ? -1 : 1)
  return withinBounds(value === 0 ? 0 : value, limits)
}

/** A finite number from text or a JSON number; bounds only when the field declares them. */
export function readNumber(raw: unknown, source: NumberSource, bounds: Bounds = {}): NumberReading {
  let value: number
  if (typeof raw === 'number') value = raw
  else if (typeof raw === 'string' && raw.length <= MAX_TEXT_LENGTH && DECIMAL_TEXT.test(raw)) value = Number(raw.trim())
  else if (typeof raw === 'string' && raw.length > MAX_TEXT_LENGTH) return { ok: false, message: 'String value too large.' }
  else return { ok: false, message: invalidNumber(source) }
  if (!Number.isFinite(value)) return { ok: false, message: invalidNumber(source) }
  return withinBounds(value, { minimum: bounds.minimum ?? -Infinity, maximum: bounds.maximum ?? Infinity })
}

/**
 * A comma-separated id list (`id__in=1,2,3`), as django-filter's `__in` filters read it: empty items are
 * skipped, any other item must be a whole number. Ids no row can have (past the int4 range) match nothing,
 * so they are dropped rather than overflow the column. Null when an item is not a whole number.
 */
export function readIdList(text: string): number[] | null {
  const ids: number[] = []
  for (const part of text.split(',')) {
    if (part.trim() === '') continue
    const reading = readInteger(part, 'query', { minimum: -Infinity, maximum: Infinity })
    if (!reading.ok) {
      if (!isIntegerText(part)) return null
      continue
    }
    if (reading.value >= INT4_MIN && reading.value <= INT4_MAX) ids.push(reading.value)
  }
  return ids
}

/** An id list already checked by the request's schema walk; anything unreadable reads as no ids. */
export function parseIdList(text: string): number[] {
  return readIdList(text) ?? []
}
