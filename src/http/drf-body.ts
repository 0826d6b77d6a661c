import type { FastifyRequest } from 'fastify'
import { readsBodyTypes } from './body.ts'
import { othersErrors } from './number-fields.ts'
import { ValidationFailed, type FieldErrors } from '../core/errors.ts'

interface PropertySchema {
  type?: string
  anyOf?: { type?: string }[]
}
interface BodySchema {
  properties?: Record<string, PropertySchema>
  required?: string[]
}

const WRONG_TYPE: Record<string, string> = {
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  string: 'Not a valid string.',
  boolean: 'Must be a valid boolean.',
}

function kindOf(property: PropertySchema): { type: string | undefined; nullable: boolean } {
  if (!property.anyOf) return { type: property.type, nullable: property.type === 'null' }
  return {
    type: property.anyOf.find((option) => option.type !== 'null')?.type,
    nullable: property.anyOf.some((option) => option.type === 'null'),
  }
}

/** A JSON value no DRF field of that type takes: `true` is no id or text, `["a"]` no string, `{}` nothing. */
function wrongType(type: string | undefined, value: unknown): boolean {
  if (type === undefined || !(type in WRONG_TYPE)) return false
  if (typeof value === 'object' && value !== null) return true
  return typeof value === 'boolean' && type !== 'boolean'
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export interface DrfFields {
  /** Text fields that lose surrounding white space first, so that length limits apply to what is kept. */
  trim?: readonly string[]
  /** Text fields that may not be blank (DRF's CharField without allow_blank). */
  notBlank?: readonly string[]
  /** Fields with a fixed set of values (DRF's ChoiceField compares them as strings). */
  choices?: Readonly<Record<string, readonly (string | number)[]>>
}

/**
 * Reads a write body the way DRF's serializer fields read it, before the route's schema checks it.
 * The schema check coerces types, which suits form bodies (every value a string) but would turn a
 * JSON `true` into the id 1 or a down vote, and `["a"]` into "a". So, field by field:
 * - a value of a JSON type the field cannot take is refused ("A valid integer is required.");
 * - null is refused where the field takes no null ("This field may not be null."), except on a
 *   boolean, where it reads as absent (as votes on questions read it);
 * - an empty id is null (DRF's related fields); in a form, an empty field that takes null is null,
 *   and an empty optional one counts as left out (a repeated field already gave its last value: keepLastValues);
 * - `trim`, `notBlank` and `choices` as declared.
 * Refusals are answered together with the schema's own messages for the other fields, in one 400
 * naming every field at fault, in the order of the body's fields.
 */
export function drfBody(fields: DrfFields = {}) {
  const { trim = [], notBlank = [], choices = {} } = fields
  return readsBodyTypes(async (request: FastifyRequest): Promise<void> => {
    const schema = request.routeOptions.schema?.body as BodySchema | undefined
    const body = request.body
    if (!schema?.properties || !isPlainObject(body)) return
    const form = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
    const required = new Set(schema.required ?? [])
    const refused: FieldErrors = {}
    for (const [name, property] of Object.entries(schema.properties)) {
      if (!(name in body)) continue
      const { type, nullable } = kindOf(property)
      let value = body[name]
      if (value === '') {
        if (form && nullable) value = null
        else if (form && !required.has(name)) {
          delete body[name]
          continue
        } else if (type === 'integer') value = null
      }
      if (value === null && !nullable) {
        if (type === 'boolean') delete body[name]
        else refused[name] = ['This field may not be null.']
        continue
      }
      if (wrongType(type, value)) {
        refused[name] = [WRONG_TYPE[type!]]
        continue
      }
      if (trim.includes(name) && typeof value === 'string') value = value.trim()
      if (notBlank.includes(name) && value === '') refused[name] = ['This field may not be blank.']
      else if (name in choices && value !== null && !choices[name].map(String).includes(String(value)))
        refused[name] = [`"${String(value)}" is not a valid choice.`]
      body[name] = value
    }
    if (Object.keys(refused).length === 0) return
    const others = othersErrors(request, 'body', body, refused)
    const errors: FieldErrors = {}
    for (const name of Object.keys(schema.properties)) {
      const messages = refused[name] ?? others[name]
      if (messages) errors[name] = messages
    }
    for (const [name, messages] of Object.entries(others)) errors[name] ??= messages
    throw ValidationFailed(errors)
  })
}
