import { readsBodyTypes } from '../../http/body.ts'
import type { FastifyError, FastifyRequest } from 'fastify'
import type { Kysely, Transaction } from 'kysely'
import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import type { Caller } from '../../http/authentication.ts'
import { NotFound, ValidationFailed, validationBody, type FieldErrors } from '../../http/errors.ts'
import type { Database } from '../../db/database.ts'
import { INT4_MAX, isIntegerText } from '../../http/integers.ts'
import { Nullable } from '../../http/schemas.ts'
import { invalidPk } from '../groups/constraints.ts'
import { activeUserExists } from '../groups/user-summaries.ts'
import { ReducedUser, toReducedUser } from '../questions/friends-answers/friends-answers.schemas.ts'
import { userViewContext } from '../users/users.routes.ts'
import { loadFullUsers } from '../users/users.service.ts'
import type { Db } from '../../db/types.ts'

/** What the tag delegation, question delegation and representation routes share. */

/** A primary key named in a body (readBody has turned anything else into a 400 before the schema sees it). */
export const PkField = (description: string) => Type.Integer({ minimum: 1, maximum: INT4_MAX, description })
export const TrusteeField = Nullable(PkField('the user who answers for you; null for a block ("do not delegate")'))

export const SELF_DELEGATION = 'You cannot delegate to yourself.'
export const REVOKED = 'This delegation has been revoked; it can no longer be changed.'

export const revokedError = () => ValidationFailed({ non_field_errors: [REVOKED] })

/**
 * A trustee must be someone else with an active, undeleted account; null (a block) is always fine.
 * Adds the refusal to `errors` under `trustee`.
 */
export async function checkTrustee(db: Db, delegatorId: number, trusteeId: number | null | undefined, errors: FieldErrors): Promise<void> {
  if (trusteeId === null || trusteeId === undefined) return
  if (trusteeId === delegatorId) errors.trustee = [SELF_DELEGATION]
  else if (!(await activeUserExists(db as Kysely<Database>, trusteeId))) errors.trustee = [invalidPk(trusteeId)]
}

/**
 * Serialises one user's delegation writes (two at once on the same tag or question, or a reorder
 * meeting a new delegation). Taken inside the liquid write, after the questions' locks, the order
 * every answer write follows too (questions, then the user row).
 */
export async function lockDelegator(trx: Transaction<Database>, userId: number): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute()
}

const OFF_VALUES = new Set(['', '0', 'false', 'f', 'no', 'n', 'off'])

/** `history=1` (or true, yes, on): revoked delegations are listed too. */
export function historyOn(value: string | undefined): boolean {
  return value !== undefined && !OFF_VALUES.has(value.trim().toLowerCase())
}

/** 404 unless the caller is the delegating user or staff: others' delegations do not exist for them. */
export function ownOrStaff<Row extends { user_id: number }>(caller: Caller, row: Row | undefined): Row {
  if (!row || (row.user_id !== caller.id && !caller.isStaff)) throw NotFound()
  return row
}

/** Reduced users (spec 2.2) by id, in a fixed number of statements. */
export async function reducedUsers(app: App, request: FastifyRequest, ids: (number | null)[]): Promise<Map<number, ReducedUser>> {
  const wanted = ids.filter((id): id is number => id !== null)
  if (wanted.length === 0) return new Map()
  const users = await loadFullUsers(userViewContext(app, request), wanted)
  return new Map([...users].map(([id, user]) => [id, toReducedUser(user)]))
}

export { ReducedUser }

/** How readBody reads each field: a primary key (nullable or not) or a plain integer. */
export type BodyFields = Record<string, 'pk' | 'nullable-pk' | 'integer'>

const PYTHON_TYPE = (value: unknown) =>
  value === null ? 'NoneType' : Array.isArray(value) ? 'list' : typeof value === 'object' ? 'dict' : typeof value === 'boolean' ? 'bool' : typeof value === 'string' ? 'str' : Number.isInteger(value) ? 'int' : 'float'

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Reads a delegation write body as DRF's PrimaryKeyRelatedField and IntegerField read it, before the
 * schema checks it (the schema's type coercion would read `true` as 1, and 0 as null for a nullable id):
 * - an id may come as a number or as text of digits; an empty one is null (a block where null is allowed);
 * - an id no row can have (0, negative, too large) does not exist: `Invalid pk "0" - object does not exist.`;
 * - anything else is `Incorrect type. Expected pk value, received str.` (or bool, dict, list, float);
 * - null where a field takes none: `This field may not be null.`;
 * - in a form, a repeated field gives its last value, and an empty optional integer counts as left out.
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
      if (form && Array.isArray(value)) value = value.at(-1)
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
        refused[name] = [`Invalid pk "${value}" - object does not exist.`]
      }
      body[name] = value
    }
    if (Object.keys(refused).length === 0) return
    const rest = Object.fromEntries(Object.entries(body).filter(([name]) => !(name in refused)))
    const validate = request.getValidationFunction('body') as ((data: unknown) => boolean) & { errors?: FastifyError['validation'] }
    const others = validate && !validate(rest) ? validationBody({ validation: validate.errors, validationContext: 'body' } as FastifyError) : {}
    throw ValidationFailed({ ...others, ...refused })
  })
}
