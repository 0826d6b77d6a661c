import type { Kysely, Transaction } from 'kysely'
import type { Database } from './database.ts'

/** Where a query runs: the database, or a transaction already open on it. */
export type Db = Kysely<Database> | Transaction<Database>

/**
 * The same database for statements whose table and column names are values (a figure's target table, a
 * family's count columns): Kysely checks no name there, and every value read is unknown until narrowed.
 */
export type UntypedTables = Record<string, Record<string, unknown>>
export type UntypedDb = Kysely<UntypedTables>

export const untyped = (db: Db): UntypedDb => db as unknown as UntypedDb
