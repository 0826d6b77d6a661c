import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import type { Caller } from '../../http/authentication.ts'
import type { UserViewContext } from '../users/users.service.ts'
import { userViewContext } from '../users/users.service.ts'

/** What the collection resources need to shape an answer for the caller. */
export interface CollectionViewContext extends UserViewContext {
  caller: Caller | null
}

export function collectionViewContext(app: App, request: FastifyRequest): CollectionViewContext {
  return { ...userViewContext(app, request), caller: request.caller }
}
