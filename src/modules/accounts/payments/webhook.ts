import { ParseError, ValidationFailed, type FieldErrors } from '../../../core/errors.ts'

export interface PaymentEvent {
  id: string
  type: string
  subscription: string
  periodEnd?: Date
}

const text = (value: unknown, max: number) => typeof value === 'string' && value.trim() !== '' && value.length <= max

/** `current_period_end` as ISO 8601 text or Unix seconds. */
function instant(value: unknown): Date | null {
  const date =
    typeof value === 'number'
      ? new Date(value * 1000)
      : typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)
        ? new Date(value)
        : null
  return date && !Number.isNaN(date.getTime()) && date.getUTCFullYear() < 10000 ? date : null
}

/** The signed body as an event: `{id, type, data: {subscription, current_period_end?}}`. */
export function parseEvent(raw: Buffer): PaymentEvent {
  let body: unknown
  try {
    body = JSON.parse(raw.toString('utf8'))
  } catch (error) {
    throw ParseError(`JSON parse error - ${(error as Error).message}`)
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw ValidationFailed({ non_field_errors: ['Invalid data. Expected a dictionary.'] })
  const { id, type, data } = body as Record<string, unknown>
  const errors: FieldErrors = {}
  if (!text(id, 255)) errors.id = ['A non-empty string of at most 255 characters is required.']
  if (!text(type, 100)) errors.type = ['A non-empty string of at most 100 characters is required.']
  const fields = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null
  if (!fields) errors.data = ['Invalid data. Expected a dictionary.']
  else if (!text(fields.subscription, 255)) errors['data.subscription'] = ['A non-empty string of at most 255 characters is required.']
  const end = fields?.current_period_end
  const periodEnd = end === undefined || end === null ? undefined : instant(end)
  if (periodEnd === null) errors['data.current_period_end'] = ['Expected an ISO 8601 date-time or Unix seconds.']
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return { id: id as string, type: type as string, subscription: fields!.subscription as string, ...(periodEnd ? { periodEnd } : {}) }
}
