import fs from 'node:fs'
import path from 'node:path'
import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import { PGliteDialect } from './pglite-dialect.ts'
import type { Database } from './database.ts'
import { countQuery } from './query-counter.ts'

// int8 (count(*), bigint sums) as JS numbers: every figure we count fits in 2^53.
pg.types.setTypeParser(20, (value) => Number(value))
// numeric as number as well (avg(), sums of doubles cast to numeric).
pg.types.setTypeParser(1700, (value) => Number(value))
// date stays the calendar date it is, not a Date at local midnight.
pg.types.setTypeParser(1082, (value) => value)
const PGLITE_PARSERS = { 20: Number, 1700: Number, 1082: (value: string) => value }

const log = () => countQuery()

export type DatabaseKind = 'postgres' | 'pglite'

export interface DatabaseHandle {
  db: Kysely<Database>
  kind: DatabaseKind
  close(): Promise<void>
  /** The embedded database's files as a tarball (PGlite only): tests start from such a template. */
  dumpDataDir?: () => Promise<Blob>
}

export interface ConnectOptions {
  databaseUrl: string | null
  dataDir: string
  /** A PGlite data directory tarball to start from (tests load a migrated template). */
  pgliteLoadDataDir?: Blob
  /** Keep the PGlite database in memory only. */
  inMemory?: boolean
  poolSize?: number
}

/** PostgreSQL through `pg` when a URL is given, an embedded PGlite database under dataDir otherwise. */
export async function connectDatabase(options: ConnectOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 })
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log })
    return { db, kind: 'postgres', close: () => db.destroy() }
  }
  const dir = options.inMemory ? undefined : path.join(options.dataDir, 'pglite')
  if (dir) fs.mkdirSync(dir, { recursive: true })
  const pglite = new PGlite({ dataDir: dir, loadDataDir: options.pgliteLoadDataDir, parsers: PGLITE_PARSERS })
  await pglite.waitReady
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), log })
  return {
    db,
    kind: 'pglite',
    close: () => db.destroy(),
    dumpDataDir: () => pglite.dumpDataDir('none'),
  }
}
