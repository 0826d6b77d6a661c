import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { idParam } from '../../http/permissions.ts'
import { collectionsRepository } from './collections.repository.ts'

/** The owner of the collection a URL names (undefined: no such collection, 404). */
export function collectionOwner(app: App) {
  return async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : (await collectionsRepository(app.db).find(id))?.user_id
  }
}
