import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { idParam } from '../../http/permissions.ts'
import { ErrorBody, FieldErrorsBody, Id } from '../../http/schemas.ts'

/** Shared pieces of the group resources' routes. */
export const IdParams = Type.Object({ id: Id })
export const writeErrors = { 400: FieldErrorsBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody }
export const NoContent = Type.Null()

/** Actions take no fields: an empty body, `{}` or form data all do. */
export const EmptyBody = Type.Object({})

/** The signed-in caller's id inside an owner lookup (the permission layer has checked there is one). */
export function callerIdOf(request: FastifyRequest): number {
  return request.caller!.id
}

export { idParam }
