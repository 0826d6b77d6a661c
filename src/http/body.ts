import type { FastifyInstance, FastifyRequest } from 'fastify'
import { decodeBody, parseForm, refuseDeepNesting } from './body-text.ts'
import { ApiError, ParseError, ValidationFailed } from '../core/errors.ts'
import { readNumberFields } from './number-fields.ts'
import { keepLastValues } from './repeated-fields.ts'
import { lightHook, lightParsingHook } from './hooks.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its body's types itself (with DRF's relation messages); the shared check steps aside. */
    ownBodyTypes?: boolean
  }
}

const OWN_READER = Symbol('reads its body types itself')

/** Marks a preValidation hook that refuses wrongly typed fields itself, so the shared check leaves them to it. */
export function readsBodyTypes<T extends object>(hook: T): T {
  return Object.assign(hook, { [OWN_READER]: true })
}

const TRUE_VALUES = new Set(['true', 'True', 'TRUE', 't', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', '1'])
const FALSE_VALUES = new Set(['false', 'False', 'FALSE', 'f', 'F', 'n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', '0'])

/**
 * Request bodies as DRF parses them: JSON (an empty body is `{}`, `null` stays null), form-urlencoded
 * fields (a repeated key is a list, then its last value for a declared field that takes no list), or no body
 * at all. Anything else is 415, as is another charset than UTF-8; bytes that are not UTF-8 and JSON nested past
 * a bound are 400 (docs/input.md).
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addHook('onRoute', (route) => {
    const hooks = [route.preValidation].flat() as unknown[]
    if (hooks.some((hook) => typeof hook === 'function' && OWN_READER in hook))
      route.config = { ...(route.config ?? {}), ownBodyTypes: true }
    // Numbers are read last, after any route's own reader of its body, and before Ajv coerces anything.
    route.preValidation = [
      ...(hooks.filter(Boolean) as NonNullable<typeof route.preValidation>[]),
      readNumberFields,
    ] as typeof route.preValidation
  })
  const parseJson = (request: FastifyRequest, raw: string | Buffer, done: (error: Error | null, body?: unknown) => void) => {
    try {
      const source = decodeBody(request, raw, 'JSON')
      if (source.trim() === '') return done(null, {})
      refuseDeepNesting(source)
      done(null, JSON.parse(source))
    } catch (error) {
      done(error instanceof ApiError ? error : ParseError(`JSON parse error - ${(error as Error).message}`), undefined)
    }
  }
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJson)
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'buffer' }, parseJson)
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, raw, done) => {
    try {
      done(null, parseForm(decodeBody(request, raw, 'Form')))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
  // Before the access check, whose owner lookups read the path's values.
  app.addHook(
    'preParsing',
    lightParsingHook((request) => refuseNullCharacters(request.params)),
  )
  app.addHook(
    'preValidation',
    lightHook((request) => {
      if (request.body === undefined && ['POST', 'PUT', 'PATCH'].includes(request.method)) request.body = {}
      if (isForm(request) && request.body && typeof request.body === 'object')
        keepLastValues(request.body as Record<string, unknown>, request.routeOptions.schema?.body as never, true)
      refuseNullCharacters(request.query)
      refuseNullCharacters(request.body)
      refuseWrongJsonTypes(request)
      coerceBooleans(request)
    }),
  )
}

const isForm = (request: FastifyRequest) =>
  String(request.headers['content-type'] ?? '')
    .toLowerCase()
    .startsWith('application/x-www-form-urlencoded')

/**
 * PostgreSQL text cannot hold U+0000; DRF refuses it with this message, and so do we, before any SQL. The
 * walk keeps its own stack, so no nesting overflows it; a field is named by its top-level key.
 */
function refuseNullCharacters(root: unknown): void {
  const pending: [unknown, string][] = [[root, 'non_field_errors']]
  while (pending.length) {
    const [value, field] = pending.pop()!
    if (typeof value === 'string') {
      if (value.includes('\u0000')) throw ValidationFailed({ [field]: ['Null characters are not allowed.'] })
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push([item, field])
    } else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) pending.push([item, field === 'non_field_errors' ? key : field])
    }
  }
}

/** DRF's BooleanField accepts "1", "yes", "on" and friends; Ajv only knows "true" and "false". */
function coerceBooleans(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.body as
    { properties?: Record<string, { type?: unknown; anyOf?: { type?: unknown }[] }> } | undefined
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

type PropertySchema = { type?: unknown; anyOf?: PropertySchema[] }

function typesOf(property: PropertySchema): string[] {
  if (property.anyOf) return property.anyOf.flatMap(typesOf)
  if (Array.isArray(property.type)) return property.type as string[]
  return typeof property.type === 'string' ? [property.type] : []
}

function wrongTypeMessage(types: string[]): string {
  if (types.includes('integer')) return 'A valid integer is required.'
  if (types.includes('number')) return 'A valid number is required.'
  if (types.includes('string')) return 'Not a valid string.'
  return 'Invalid value.'
}

/**
 * JSON values DRF would refuse for a field, refused with DRF's message before Ajv's coercion turns them
 * into something else: `true` for a number or a string, a list or an object for a scalar, `null` for a
 * field that takes none (booleans aside: routes read a null privacy flag as "not given").
 */
function refuseWrongJsonTypes(request: FastifyRequest): void {
  if (request.routeOptions.config.ownBodyTypes || !/json/.test(request.headers['content-type'] ?? '')) return
  const schema = request.routeOptions.schema?.body as { properties?: Record<string, PropertySchema> } | undefined
  const body = request.body
  if (!schema?.properties || !body || typeof body !== 'object' || Array.isArray(body)) return
  const errors: Record<string, string[]> = {}
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = (body as Record<string, unknown>)[name]
    const types = typesOf(property)
    if (value === undefined || types.length === 0) continue
    if (value === null) {
      if (!types.includes('null') && !types.includes('boolean')) errors[name] = ['This field may not be null.']
    } else if (typeof value === 'boolean') {
      if (!types.includes('boolean')) errors[name] = [wrongTypeMessage(types)]
    } else if (typeof value === 'object') {
      const structured = Array.isArray(value) ? types.includes('array') : types.includes('object')
      if (!structured)
        errors[name] = [
          Array.isArray(value) && types.includes('object')
            ? 'Expected a dictionary of items but got type "list".'
            : wrongTypeMessage(types),
        ]
    }
  }
  if (Object.keys(errors).length) throw ValidationFailed(errors)
}
