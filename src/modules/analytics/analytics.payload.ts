import { ValidationFailed, type FieldErrors } from '../../core/errors.ts'
import { EVENT_BODIES, type EventKind, type EventPayload } from './analytics.schemas.ts'

/** Reading an event body into the payload stored, apart from any storage. Lengths and types are the schema's. */

const URL_FIELDS = new Set(['url', 'analytics_parent_url'])
const REQUIRED_TEXT = new Set(['url', 'platform'])

/** DRF URLField's message: only absolute http and https URLs are taken. */
export const INVALID_URL = 'Enter a valid URL.'
export const INVALID_LOCATION = "Enter 'latitude,longitude' or 'latitude,longitude,accuracy'."
export const NULL_CHARACTERS = 'Null characters are not allowed.'
export const NOT_UNICODE = 'Enter text without unpaired surrogates.'

export function isWebUrl(text: string): boolean {
  if (!/^https?:\/\//i.test(text) || /\s/.test(text)) return false
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** 'lat,lng' or 'lat,lng,accuracy', as the web app builds it from the browser's position. */
export function isLocation(text: string): boolean {
  const parts = text.split(',').map((part) => part.trim())
  if (parts.length < 2 || parts.length > 3 || parts.some((part) => !/^[-+]?(\d+\.?\d*|\.\d+)$/.test(part))) return false
  const [latitude, longitude, accuracy = 0] = parts.map(Number)
  return Math.abs(latitude) <= 90 && Math.abs(longitude) <= 180 && accuracy >= 0
}

/** A text field's problem, or null: PostgreSQL stores neither NUL characters nor unpaired surrogates in JSON. */
function textProblem(field: string, text: string): string | null {
  if (text.includes('\u0000')) return NULL_CHARACTERS
  // With the u flag, a surrogate range matches only surrogates not part of a pair.
  if (/[\uD800-\uDFFF]/u.test(text)) return NOT_UNICODE
  if (REQUIRED_TEXT.has(field) && text === '') return 'This field may not be blank.'
  if (text === '') return null
  if (URL_FIELDS.has(field) && !isWebUrl(text)) return INVALID_URL
  if (field === 'analytics_location' && !isLocation(text)) return INVALID_LOCATION
  return null
}

/**
 * The payload of a validated body: every field of the kind, trimmed, with empty or absent optional ones as
 * null. Every field's problem is reported at once, DRF-style.
 */
export function eventPayload(kind: EventKind, body: Record<string, unknown>): EventPayload {
  const payload: EventPayload = {}
  const errors: FieldErrors = {}
  for (const field of Object.keys(EVENT_BODIES[kind].properties)) {
    const value = body[field]
    if (typeof value === 'number') {
      payload[field] = value
      continue
    }
    if (typeof value !== 'string') {
      payload[field] = null
      continue
    }
    const text = value.trim()
    const problem = textProblem(field, text)
    if (problem) errors[field] = [problem]
    payload[field] = text === '' ? null : text
  }
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return payload
}

/** Days as the query names them (YYYY-MM-DD, UTC), as the bounds of created_at: [from, to + 1 day). */
export function dayRange(from: string | undefined, to: string | undefined): { start: Date | null; end: Date | null } {
  const start = from === undefined ? null : dayStart(from)
  const last = to === undefined ? null : dayStart(to)
  if (start && last && start > last) throw ValidationFailed({ from: ['Ensure this date is not after to.'] })
  const end = last ? new Date(last.getTime() + 86_400_000) : null
  // No event is older than the Unix epoch or younger than year 9000: bounds past them bound nothing
  // (and keep the timestamps sent to the database inside its range).
  return { start: start && start.getTime() > 0 ? start : null, end: end && end.getUTCFullYear() < 9000 ? end : null }
}

function dayStart(day: string): Date {
  return new Date(`${day}T00:00:00.000Z`)
}
