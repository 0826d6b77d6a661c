import type { FastifyRequest } from 'fastify'
import type { ViewContext } from '../core/view-context.ts'
import type { App } from './app-type.ts'
import { urlsFor } from './urls.ts'

/** How the request's caller sees answers: their identity, and URLs on the request's host. */
export function viewContextOf(app: App, request: FastifyRequest): ViewContext {
  return {
    db: app.db,
    urls: urlsFor(request),
    caller: request.caller,
    defaultAvatar: app.config.defaultAvatarUrl,
    minCellSize: app.config.minCellSize,
  }
}
