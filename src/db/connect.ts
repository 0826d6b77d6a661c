import fs from 'node:fs'
import path from 'node:path'
import { Kysely, PostgresDialect, sql, type PostgresPool, type PostgresPoolClient } from 'kysely'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import { PGliteDialect } from './pglite-dialect.ts'
import { lockDataDir } from './data-dir-lock.ts'
import type { Database } from './database.ts'
import { countQuery } from './query-counter.ts'
import { isConnectionBroken, isDatabaseUnavailable } from './availability.ts'
import { copyThroughPg, isCopy } from './copy-in.ts'
import { isStalePreparedStatement, PreparedStatements } from './prepared-statements.ts'
import { listenOnPglite, ServerNotices, type DataChangeListener, type DataChanges } from './data-changes.ts'
import { parseLsn, ReplicaSet } from './replicas.ts'
import { ReadRouter, registerReadRouter, routingPool } from './read-routing.ts'
import { memoryWritePositions, redisWritePositions } from './write-positions.ts'

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
  /**
   * Tells the listener of every committed change of served data (or of the notices on `channels`), until the
   * returned handle is closed. A PostgreSQL server's notices come on one connection shared by every listener.
   */
  listenForChanges(listener: DataChangeListener, channels?: readonly string[]): Promise<DataChanges>
  /** A PostgreSQL server's connection pools as they are now (the primary's, then each replica's); none for PGlite. */
  pools?(): PoolStats[]
}

/** What `pg.Pool` counts of its connections: all it holds, the idle ones, the requests waiting for one, its limit. */
export interface PoolStats {
  /** `primary`, or a replica's host:port */
  database: string
  total: number
  idle: number
  waiting: number
  max: number
}

function poolStats(database: string, pool: pg.Pool): PoolStats {
  return { database, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: pool.options.max ?? 10 }
}

export interface ConnectOptions {
  databaseUrl: string | null
  dataDir: string
  /** A PGlite data directory tarball to start from (tests load a migrated template). */
  pgliteLoadDataDir?: Blob
  /** Keep the PGlite database in memory only. */
  inMemory?: boolean
  /** Arguments added to initdb's when PGlite creates the database (the test templates take 1 MB WAL segments). */
  pgliteInitdbArgs?: string[]
  poolSize?: number
  /** PostgreSQL server: how long to wait for a connection, from the pool or the network (default 5 s). */
  connectTimeoutMs?: number
  /** PostgreSQL server: the longest a statement may run (unset or 0: no limit). */
  statementTimeoutMs?: number
  /** PostgreSQL server: send repeated statements as named prepared statements (not through a transaction pooler). */
  preparedStatements?: boolean
  /** Told of every connection that breaks (terminated, reset, timed out); the pool replaces it by itself. */
  onConnectionError?: (error: Error) => void
  /** The primary itself, for LISTEN, when databaseUrl is a transaction pooler (default: databaseUrl). */
  directUrl?: string | null
  /** Read replicas: plain reads of GET requests go to them (src/db/read-routing.ts). */
  replicaUrls?: readonly string[]
  /** A replica that has not caught up for longer than this is skipped (default 1000 ms). */
  replicaMaxLagMs?: number
  /** Where callers' write positions are shared between processes; unset: this process's memory. */
  redisUrl?: string | null
  redisPrefix?: string
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000

/** Where the embedded database keeps its files inside DATA_DIR (beside the lock and the mail spool). */
export const pgliteDirectory = (dataDir: string) => path.join(dataDir, 'pglite')

/** The client-side guard waits this much longer than the server's statement timeout, which should answer first. */
const QUERY_TIMEOUT_MARGIN_MS = 2_000

/** PostgreSQL through `pg` when a URL is given, an embedded PGlite database under dataDir otherwise. */
export async function connectDatabase(options: ConnectOptions): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = serverPool(options.databaseUrl, options)
    if (options.replicaUrls && options.replicaUrls.length > 0) return withReplicas(pool, options.replicaUrls, options)
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: droppingBrokenClients(pool, preparedFor(options)) }), log })
    const notices = new ServerNotices(options.directUrl ?? options.databaseUrl, options.onConnectionError)
    return {
      db,
      kind: 'postgres',
      close: () => db.destroy(),
      listenForChanges: (listener, channels) => notices.listen(listener, channels),
      pools: () => [poolStats('primary', pool)],
    }
  }
  const dir = options.inMemory ? undefined : pgliteDirectory(options.dataDir)
  // Two processes on one directory diverge and can corrupt it: the second is refused (DataDirInUse).
  const lock = dir ? lockDataDir(options.dataDir) : null
  let pglite: PGlite
  try {
    if (dir) fs.mkdirSync(dir, { recursive: true })
    pglite = new PGlite({
      dataDir: dir,
      loadDataDir: options.pgliteLoadDataDir,
      initDbStartParams: options.pgliteInitdbArgs,
      parsers: PGLITE_PARSERS,
    })
    await pglite.waitReady
  } catch (error) {
    lock?.release()
    throw error
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), log })
  return {
    db,
    kind: 'pglite',
    close: async () => {
      try {
        await db.destroy()
      } finally {
        lock?.release()
      }
    },
    dumpDataDir: () => pglite.dumpDataDir('none'),
    listenForChanges: (listener, channels) => listenOnPglite(pglite, listener, channels),
  }
}

export const DEFAULT_REPLICA_MAX_LAG_MS = 1_000
/** The longest a read waits for a replica to replay its caller's last write before it reads the primary. */
const LONGEST_REPLICA_WAIT_MS = 100
/** A replica that does not answer is given up on sooner than the primary: the primary can take its reads. */
const REPLICA_CONNECT_TIMEOUT_MS = 1_000

function withReplicas(pool: pg.Pool, replicaUrls: readonly string[], options: ConnectOptions): DatabaseHandle {
  const maxLagMs = options.replicaMaxLagMs ?? DEFAULT_REPLICA_MAX_LAG_MS
  const replicaOptions = {
    ...options,
    connectTimeoutMs: Math.min(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, REPLICA_CONNECT_TIMEOUT_MS),
  }
  const samplePrimary = async () => parseLsn((await pool.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')).rows[0]?.lsn)
  const replicas = new ReplicaSet(
    replicaUrls.map((url) => ({ url, pool: serverPool(url, replicaOptions) })),
    samplePrimary,
    { maxLagMs },
  )
  // Past a few lags every replica in use has replayed a recorded position anyway.
  const ttlMs = 3 * maxLagMs + 1_000
  const positions = options.redisUrl
    ? redisWritePositions(options.redisUrl, options.redisPrefix ?? 'civic-survey:', ttlMs)
    : memoryWritePositions(ttlMs)
  const router = new ReadRouter({ primary: pool, replicas, positions, waitMs: Math.min(LONGEST_REPLICA_WAIT_MS, maxLagMs) })
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: routingPool(droppingBrokenClients(pool, preparedFor(options)), router) }),
    log,
  })
  registerReadRouter(db, router)
  const notices = new ServerNotices(options.directUrl ?? options.databaseUrl!, options.onConnectionError, (position) =>
    router.noticeAt(position),
  )
  return {
    db,
    kind: 'postgres',
    close: async () => {
      try {
        await db.destroy()
      } finally {
        await router.close()
      }
    },
    listenForChanges: (listener, channels) => notices.listen(listener, channels),
    pools: () => [poolStats('primary', pool), ...replicas.replicas.map((replica) => poolStats(replica.label, replica.pool))],
  }
}

function serverPool(connectionString: string, options: ConnectOptions): pg.Pool {
  const statementTimeout = options.statementTimeoutMs ?? 0
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // Finds a peer that vanished without closing (a failover, a dropped NAT entry) on a connection left idle.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // The server cancels a statement past its timeout; query_timeout guards against a socket that stopped answering.
    ...(statementTimeout > 0 ? { statement_timeout: statementTimeout, query_timeout: statementTimeout + QUERY_TIMEOUT_MARGIN_MS } : {}),
  })
  const report = options.onConnectionError ?? (() => {})
  // A client lent to a request has no listener of the pool's: a backend terminated between two statements of a
  // transaction emits 'error' on the client, which would end the process. The pool drops such a client on release.
  pool.on('connect', (client) => client.on('error', report))
  // An idle client that fails is dropped by the pool, which then emits 'error' (told already by the listener above).
  pool.on('error', () => {})
  return pool
}

/**
 * Kysely releases a client without saying whether its connection still works. This remembers a failure that left
 * it unusable (a read timeout leaves a statement hanging on it) so the pool closes the client instead of lending it
 * again.
 */
function droppingBrokenClients(pool: pg.Pool, prepared: PreparedStatements | null): PostgresPool {
  // One wrapper per pg client, so Kysely keeps seeing the same connection object for the same connection.
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient & { broken?: Error }>()
  const send = async (client: pg.PoolClient, text: string, values: unknown[]) => {
    const name = prepared?.nameOf(text)
    if (name === undefined) return client.query(text, values)
    try {
      return await client.query({ name, text, values })
    } catch (error) {
      if (!isStalePreparedStatement(error)) throw error
      prepared!.forget(text)
      return client.query(text, values)
    }
  }
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect()
      let wrapper = wrappers.get(client)
      if (!wrapper) {
        const query = async (text: string, parameters: ReadonlyArray<unknown>) => {
          try {
            return isCopy(parameters) ? await copyThroughPg(client, text, parameters[0]) : await send(client, text, [...parameters])
          } catch (error) {
            if (isConnectionBroken(error)) wrapper!.broken = error as Error
            throw error
          }
        }
        wrapper = { query: query as unknown as PostgresPoolClient['query'], release: () => client.release(wrapper!.broken) }
        wrappers.set(client, wrapper)
      }
      return wrapper
    },
    end: () => pool.end(),
  }
}

const preparedFor = (options: ConnectOptions) => (options.preparedStatements ? new PreparedStatements() : null)

/** The URL with its password masked, for logs and messages. */
export function redactedUrl(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl)
    if (url.password) url.password = '***'
    if (url.searchParams.has('password')) url.searchParams.set('password', '***')
    return url.toString()
  } catch {
    return '(an unparsable URL)'
  }
}

export interface StartupOptions {
  /** How long to keep trying; 0 tries once. */
  timeoutMs: number
  /** Told one line per failed attempt. */
  log: (line: string) => void
}

export class DatabaseUnreachable extends Error {
  override name = 'DatabaseUnreachable'
}

const FIRST_RETRY_MS = 500
const LONGEST_RETRY_MS = 10_000

/**
 * Connects and waits until the database answers, retrying with exponential backoff while it is unreachable (a
 * server still starting, a failover under way), then gives up with one line naming the database.
 */
export async function connectWhenReachable(options: ConnectOptions, startup: StartupOptions): Promise<DatabaseHandle> {
  const handle = await connectDatabase(options)
  if (handle.kind === 'pglite' || !options.databaseUrl) return handle
  const where = redactedUrl(options.databaseUrl)
  const deadline = Date.now() + startup.timeoutMs
  for (let attempt = 1; ; attempt++) {
    try {
      await sql`select 1`.execute(handle.db)
      return handle
    } catch (error) {
      if (!isDatabaseUnavailable(error)) {
        await handle.close().catch(() => {})
        throw error
      }
      const reason = error instanceof Error ? error.message || (error as { code?: string }).code : String(error)
      const wait = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), LONGEST_RETRY_MS, deadline - Date.now())
      if (wait <= 0) {
        await handle.close().catch(() => {})
        const seconds = Math.round(startup.timeoutMs / 1000)
        throw new DatabaseUnreachable(`database unreachable at ${where} after ${attempt} attempts in ${seconds} s: ${reason}`)
      }
      startup.log(`database not reachable at ${where} (attempt ${attempt}: ${reason}); retrying in ${(wait / 1000).toFixed(1)} s`)
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }
}
