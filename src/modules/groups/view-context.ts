import type { FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { App } from '../../http/app-type.ts'
import type { Caller } from '../../http/authentication.ts'
import type { Database } from '../../db/database.ts'
import { UrlBuilder } from '../../http/urls.ts'

/** What the group resources need to shape an answer for the caller. */
export interface GroupViewContext {
  db: Kysely<Database>
  urls: UrlBuilder
  caller: Caller | null
  defaultAvatar: string | null
}

export function groupViewContext(app: App, request: FastifyRequest): GroupViewContext {
  return { db: app.db, urls: UrlBuilder.for(request), caller: request.caller, defaultAvatar: app.config.defaultAvatarUrl }
}

/** The same context inside a transaction. */
export function within(context: GroupViewContext, db: Kysely<Database>): GroupViewContext {
  return { ...context, db }
}
