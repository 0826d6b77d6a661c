import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { ErrorBody, FieldErrorsBody, Id } from '../../http/schemas.ts'
import { UrlBuilder } from '../../http/urls.ts'
import { viewerOf, type CommentViewContext } from './comments.service.ts'

/** What the routes of comments, comment votes, vote reasons and moderation share. */
export const IdParams = Type.Object({ id: Id })
export const writeErrors = { 400: FieldErrorsBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody }

export function commentViewContext(app: App, request: FastifyRequest): CommentViewContext {
  return { db: app.db, urls: UrlBuilder.for(request), viewer: viewerOf(request.caller), defaultAvatar: app.config.defaultAvatarUrl }
}
