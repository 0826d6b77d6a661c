import { Type } from 'typebox'
import { ErrorBody, FieldErrorsBody, Id } from './schemas.ts'

/** Route schema pieces every resource's routes share. */

/** `/<resource>/{id}/`: the id of one row. */
export const IdParams = Type.Object({ id: Id })

/** The answers a write may give instead of its own: invalid fields, no or wrong credentials, no such row, too many requests. */
export const writeErrors = { 400: FieldErrorsBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody }

/** A 204 answer. */
export const NoContent = Type.Null()

/** Actions take no fields: an empty body, `{}` or form data all do. */
export const EmptyBody = Type.Object({})
