import type { Kysely, Transaction } from 'kysely'
import type { Database } from './database.ts'

/** Where a query runs: the database, or a transaction already open on it. */
export type Db = Kysely<Database> | Transaction<Database>
