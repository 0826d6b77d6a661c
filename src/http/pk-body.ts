import type { FastifyRequest } from 'fastify'
import { readsBodyTypes } from './body.ts'
import { othersErrors } from './number-fields.ts'
import { ValidationFailed, type FieldErrors, invalidPk } from '../core/errors.ts'
import { INT4_MAX, isIntegerText } from '../core/integers.ts'

/** How readBody reads each field: a primary key (nullable or not) or a plain integer. */
export type BodyFields = Record<string, 'pk' | 'nullable-pk' | 'integer'>

const PYTHON_TYPE = (value: unknown) =>
  value === null
    ? 'NoneType'
    : Array.isArray(value)
      ? 'list'
      : typeof value === 'object'
        ? 'dict'
        : typeof value === 'boolean'
          ? 'bool'
          : typeof value === 'string'
            ? 'str'
            : Number.isInteger(value)
              ? 'int'
              : 'float'

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Reads a write body of ids and integers (delegations, collection items and tags) as DRF's PrimaryKeyRelatedField and IntegerField read it, before the
 * schema checks it (the schema's type coercion would read `true` as 1, and 0 as null for a nullable id):
 * - an id may come as a number or as text of digits; an empty one is null (a block where null is allowed);
 * - an id no row can have (0, negative, too large) does not exist: `Invalid pk "0" - object does not exist.`;
 * - anything else is `Incorrect type. Expected pk value, received str.` (or bool, dict, list, float);
 * - null where a field takes none: `This field may not be null.`;
 * - in a form, an empty optional integer counts as left out (a repeated field already gave its last value:
 *   keepLastValues, src/http/repeated-fields.ts).
 * The other fields' schema messages come in the same 400, which names every field at fault.
 */
export function readBody(fields: BodyFields) {
  return readsBodyTypes(async (request: FastifyRequest): Promise<void> => {
    const body = request.body
    if (!isPlainObject(body)) return
    const form = String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
    const refused: FieldErrors = {}
    for (const [name, kind] of Object.entries(fields)) {
      if (!(name in body)) continue
      let value = body[name]
      if (isIntegerText(value)) value = Number(value)
      if (value === '' && kind !== 'integer') value = null
      if (value === '' && form) {
        delete body[name]
        continue
      }
      if (value === null) {
        if (kind !== 'nullable-pk') refused[name] = ['This field may not be null.']
      } else if (kind === 'integer') {
        if (typeof value !== 'number' || !Number.isInteger(value)) refused[name] = ['A valid integer is required.']
      } else if (typeof value !== 'number' || !Number.isInteger(value)) {
        refused[name] = [`Incorrect type. Expected pk value, received ${PYTHON_TYPE(value)}.`]
      } else if (value < 1 || value > INT4_MAX) {
        refused[name] = [invalidPk(value)]
      }
      body[name] = value
    }
    if (Object.keys(refused).length === 0) return
    throw ValidationFailed({ ...othersErrors(request, 'body', body, refused), ...refused })
  })
}
