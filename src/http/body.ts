import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ParseError, ValidationFailed } from './errors.ts'

const TRUE_VALUES = new Set(['true', 'True', 'TRUE', 't', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', '1'])
const FALSE_VALUES = new Set(['false', 'False', 'FALSE', 'f', 'F', 'n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', '0'])

/**
 * Request bodies as DRF parses them: JSON (an empty body is `{}`, `null` stays null), form-urlencoded
 * fields (repeated keys become lists), or no body at all. Anything else is 415.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  const parseJson = (_request: unknown, text: string | Buffer, done: (error: Error | null, body?: unknown) => void) => {
    const source = String(text)
    if (source.trim() === '') return done(null, {})
    try {
      done(null, JSON.parse(source))
    } catch (error) {
      done(ParseError(`JSON parse error - ${(error as Error).message}`), undefined)
    }
  }
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson)
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parseJson)
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, text, done) => {
    const fields: Record<string, string | string[]> = {}
    for (const [key, value] of new URLSearchParams(String(text))) {
      const existing = fields[key]
      fields[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
    }
    done(null, fields)
  })
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && ['POST', 'PUT', 'PATCH'].includes(request.method)) request.body = {}
    refuseNullCharacters(request.query, 'query')
    refuseNullCharacters(request.body, 'body')
    coerceBooleans(request)
  })
}

/** PostgreSQL text cannot hold U+0000; DRF refuses it with this message, and so do we, before any SQL. */
function refuseNullCharacters(value: unknown, where: string, field = 'non_field_errors'): void {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw ValidationFailed({ [field]: ['Null characters are not allowed.'] })
  } else if (Array.isArray(value)) {
    for (const item of value) refuseNullCharacters(item, where, field)
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) refuseNullCharacters(item, where, field === 'non_field_errors' ? key : field)
  }
}

/** DRF's BooleanField accepts "1", "yes", "on" and friends; Ajv only knows "true" and "false". */
function coerceBooleans(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.body as { properties?: Record<string, { type?: unknown; anyOf?: { type?: unknown }[] }> } | undefined
  const body = request.body
  if (!schema?.properties || !body || typeof body !== 'object' || Array.isArray(body)) return
  const record = body as Record<string, unknown>
  for (const [name, property] of Object.entries(schema.properties)) {
    const acceptsBoolean = property.type === 'boolean' || property.anyOf?.some((option) => option.type === 'boolean')
    if (!acceptsBoolean) continue
    const value = record[name]
    if (typeof value === 'string') {
      if (TRUE_VALUES.has(value)) record[name] = true
      else if (FALSE_VALUES.has(value)) record[name] = false
    } else if (value === 1 || value === 0) {
      record[name] = value === 1
    }
  }
}
