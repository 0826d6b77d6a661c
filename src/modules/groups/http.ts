import type { FastifyRequest } from 'fastify'
import { signedIn } from '../../http/permissions.ts'

/** The signed-in caller's id inside an owner lookup (the permission layer has checked there is one). */
export function callerIdOf(request: FastifyRequest): number {
  return signedIn(request).id
}
