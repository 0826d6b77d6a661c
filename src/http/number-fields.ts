import type { FastifyError, FastifyRequest } from 'fastify'
import { validationBody } from './errors.ts'
import { NotFound, ValidationFailed, type FieldErrors } from '../core/errors.ts'
import { ID_LIST_FORMAT, readIdList, readInteger, readNumber, type NumberSource } from '../core/integers.ts'

type Schema = {
  type?: unknown
  anyOf?: Schema[]
  oneOf?: Schema[]
  allOf?: Schema[]
  required?: string[]
  properties?: Record<string, Schema>
  patternProperties?: Record<string, Schema>
  additionalProperties?: Schema | boolean
  items?: Schema | Schema[]
  format?: string
  minimum?: number
  maximum?: number
}

function typesOf(schema: Schema): string[] {
  const own = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : []
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]
  return [...own, ...branches.flatMap(typesOf)]
}

/** The branches of a union (or the schema itself) that describe values of `type`. */
function branchesOf(schema: Schema, type: string): Schema[] {
  const branches = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]
  const own = typesOf({ type: schema.type }).includes(type) ? [schema] : []
  return [...own, ...branches.flatMap((branch) => branchesOf(branch, type))]
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Reads every integer and number a request carries where its schema expects one, before Ajv's coercion
 * (which takes `0x10`, `1e3` and `Infinity` for numbers): text becomes the number it spells, or the field is
 * refused with DRF's message; JSON numbers must be finite, and integers inside the field's bounds or int4.
 */
class NumberWalk {
  readonly errors: FieldErrors = {}
  constructor(private readonly source: NumberSource) {}

  private refuse(path: string[], message: string): void {
    const field = path.length ? path.join('.') : 'non_field_errors'
    const list = (this.errors[field] ??= [])
    if (!list.includes(message)) list.push(message)
  }

  /** The value as it should reach Ajv. */
  visit(schema: Schema | undefined, value: unknown, path: string[]): unknown {
    if (!schema || typeof schema !== 'object' || value === undefined || value === null) return value
    for (const part of schema.allOf ?? []) value = this.visit(part, value, path)
    const types = typesOf(schema)
    if (typeof value === 'string' || typeof value === 'number') return this.scalar(schema, types, value, path)
    if (Array.isArray(value)) {
      const lists = branchesOf(schema, 'array')
      // A repeated query or form field where one number goes: Ajv takes a list of one for its item.
      if (lists.length === 0 && (types.includes('integer') || types.includes('number'))) {
        return value.map((item) => (typeof item === 'string' || typeof item === 'number' ? this.scalar(schema, types, item, path) : item))
      }
      if (lists.length !== 1) return value
      const items = lists[0].items
      return value.map((item, index) => this.visit(Array.isArray(items) ? items[index] : items, item, [...path, String(index)]))
    }
    if (isRecord(value)) {
      const objects = branchesOf(schema, 'object')
      if (objects.length !== 1) return value
      this.object(objects[0], value, path)
    }
    return value
  }

  object(schema: Schema, value: Record<string, unknown>, path: string[]): void {
    const patterns = Object.values(schema.patternProperties ?? {})
    const rest =
      typeof schema.additionalProperties === 'object' ? schema.additionalProperties : patterns.length === 1 ? patterns[0] : undefined
    for (const [name, item] of Object.entries(value)) {
      const property = schema.properties && Object.hasOwn(schema.properties, name) ? schema.properties[name] : rest
      if (property) value[name] = this.visit(property, item, [...path, name])
    }
  }

  private scalar(schema: Schema, types: string[], value: string | number, path: string[]): unknown {
    if (typeof value === 'string' && schema.format === ID_LIST_FORMAT) {
      if (readIdList(value) === null) this.refuse(path, 'Enter a whole number.')
      return value
    }
    const integer = types.includes('integer')
    const number = types.includes('number')
    if (!integer && !number) {
      // An array schema takes a lone value as a list of one (Ajv's coercion); check it as an item.
      const lists = branchesOf(schema, 'array')
      if (lists.length === 1 && lists[0].items && !Array.isArray(lists[0].items)) return this.visit(lists[0].items, value, path)
      return value
    }
    // Text is also a string where a union takes one; only a JSON number is then read as a number.
    if (typeof value === 'string' && types.includes('string')) return value
    // An empty form field where null is allowed is null (Ajv's coercion), as DRF reads it.
    if (value === '' && types.includes('null')) return value
    const [branch] = branchesOf(schema, number ? 'number' : 'integer')
    const bounds = { minimum: branch?.minimum, maximum: branch?.maximum }
    const reading = number ? readNumber(value, this.source, bounds) : readInteger(value, this.source, bounds)
    if (!reading.ok) {
      this.refuse(path, reading.message)
      return value
    }
    return reading.value
  }
}

type RouteSchemas = { querystring?: Schema; params?: Schema; body?: Schema }

/**
 * An optional query parameter sent empty (or blank) is no filter, as django-filter ignores an empty value; a
 * required one (a code to redeem) is left to its schema's message.
 */
function dropEmptyQueryValues(query: Record<string, unknown>, schema: Schema | undefined): void {
  if (!schema?.properties) return
  const required = new Set(schema.required ?? [])
  for (const name of Object.keys(schema.properties)) {
    if (required.has(name)) continue
    const value = query[name]
    if (typeof value === 'string' && value.trim() === '') delete query[name]
    else if (Array.isArray(value)) {
      const kept = value.filter((item) => !(typeof item === 'string' && item.trim() === ''))
      if (kept.length === 0) delete query[name]
      else query[name] = kept.length === 1 ? kept[0] : kept
    }
  }
}

/** The schema's messages for the other fields, so one 400 names every field at fault, as DRF's does. */
export function othersErrors(request: FastifyRequest, part: 'querystring' | 'body', value: unknown, refused: FieldErrors): FieldErrors {
  if (!isRecord(value)) return {}
  const names = new Set(Object.keys(refused).map((field) => field.split('.')[0]))
  const rest = Object.fromEntries(Object.entries(value).filter(([name]) => !names.has(name)))
  const validate = request.getValidationFunction(part) as ((data: unknown) => boolean) & { errors?: FastifyError['validation'] }
  if (!validate || validate(rest)) return {}
  return validationBody({ validation: validate.errors, validationContext: part } as FastifyError)
}

/** The route's path, query and body numbers, read once; path values that are not ids name nothing (404). */
export async function readNumberFields(request: FastifyRequest): Promise<void> {
  const schemas = (request.routeOptions.schema ?? {}) as RouteSchemas
  if (schemas.params && isRecord(request.params)) {
    const walk = new NumberWalk('query')
    walk.object(schemas.params, request.params, [])
    if (Object.keys(walk.errors).length) throw NotFound()
  }
  let errors: FieldErrors = {}
  if (schemas.querystring && isRecord(request.query)) {
    dropEmptyQueryValues(request.query, schemas.querystring)
    const walk = new NumberWalk('query')
    walk.object(schemas.querystring, request.query, [])
    if (Object.keys(walk.errors).length) errors = { ...othersErrors(request, 'querystring', request.query, walk.errors), ...walk.errors }
  }
  if (schemas.body && request.body !== undefined) {
    const walk = new NumberWalk('body')
    request.body = walk.visit(schemas.body, request.body, [])
    if (Object.keys(walk.errors).length) errors = { ...errors, ...othersErrors(request, 'body', request.body, walk.errors), ...walk.errors }
  }
  if (Object.keys(errors).length) throw ValidationFailed(errors)
}
