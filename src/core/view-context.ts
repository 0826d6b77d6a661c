import type { Kysely } from 'kysely'
import type { Database } from '../db/database.ts'
import type { Caller } from './caller.ts'
import type { UrlBuilder } from './urls.ts'

/**
 * How one answer is shaped for the person asking: which database (or transaction) to read, URLs on the host
 * the request came to, who is asking (null on a shared page or for anyone), the avatar of people without a
 * photo, and MIN_CELL_SIZE for the question figures shown beside any resource.
 */
export interface ViewContext {
  db: Kysely<Database>
  urls: UrlBuilder
  caller: Caller | null
  defaultAvatar: string | null
  minCellSize: number
}

/** The same view inside a transaction. */
export function within(context: ViewContext, db: Kysely<Database>): ViewContext {
  return { ...context, db }
}
