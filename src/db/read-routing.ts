import { AsyncLocalStorage } from 'node:async_hooks'
import type { Kysely, PostgresPool, PostgresPoolClient } from 'kysely'
import type pg from 'pg'
import type { Database } from './database.ts'
import { isCopy } from './copy-in.ts'
import { isDatabaseUnavailable } from './availability.ts'
import { parseLsn, type Replica, type ReplicaSet, type ReplicaStatus } from './replicas.ts'
import type { WritePositions } from './write-positions.ts'
import { loadStatementKinds, type StatementKinds } from './writing-functions.ts'

/**
 * Reads on replicas, beneath Kysely: the pool given to its dialect lends a client that sends a statement to a
 * replica only when the current HTTP request may read there (a GET or HEAD whose caller is identified, that has
 * written nothing), the statement is a plain read, and no transaction is open on that client. Anything else, and
 * everything outside a request (commands, background jobs, live results, kept-answer notices), goes to the primary.
 */

/** The request being served, set by the app's hooks (src/app.ts) when replicas are configured. */
export interface ReadContext {
  /** Authentication has run: reads from here on may use a replica, and writes count as the request's. */
  identified: boolean
  /** A GET or HEAD (not a probe): its reads may use a replica. */
  readOnly: boolean
  /** The request has answered: what still runs for it (background work) uses the primary. */
  ended: boolean
  /** Keys of the caller's recorded write positions ('user:ID', 'ip:ADDRESS'). */
  keys: string[]
  /** The request wrote on the primary: its remaining reads go there too, and its position is recorded after. */
  wrote: boolean
  /** No replica could serve this request (none in use, or none at its floor in time): the rest goes to the primary. */
  onPrimary: boolean
  /** The caller's newest recorded position, looked up on the first read that could use a replica. */
  floor?: Promise<bigint | null>
  /** Statements run on each side (tests see them in a header). */
  primaryStatements: number
  replicaStatements: number
}

export const readRouting = new AsyncLocalStorage<ReadContext>()

export function newReadContext(): ReadContext {
  return {
    identified: false,
    readOnly: false,
    ended: false,
    keys: [],
    wrote: false,
    onPrimary: false,
    primaryStatements: 0,
    replicaStatements: 0,
  }
}

/** A write run on this request's behalf by a statement shared with others (a group of answers): counted as its own. */
export function wroteOnPrimary(): void {
  const context = readRouting.getStore()
  if (!context || !context.identified || context.ended) return
  context.primaryStatements++
  context.wrote = true
}

const TRANSACTION_CONTROL = /^\s*(begin|start\s+transaction|commit|end|rollback|abort|savepoint|release)\b/i

/** How often a process that could not read the list of writing functions tries again (meanwhile: the primary). */
const CATALOGUE_RETRY_MS = 1_000

/** A statement taken for a read that writes after all: retried on the primary, and counted as a write. */
const READ_ONLY_TRANSACTION = '25006'
/** SQLSTATEs a replica can answer that the primary would not: retried there. */
const RETRY_ON_PRIMARY = new Set([
  '40001', // canceling statement due to conflict with recovery
  READ_ONLY_TRANSACTION,
  '0A000', // feature_not_supported: e.g. a function that cannot run during recovery
  '55000', // object_not_in_prerequisite_state: "recovery is in progress"
])

export interface ReadRouterOptions {
  /** Raw primary pool (not counted as the request's statements): reads pg_current_wal_lsn() after writes. */
  primary: pg.Pool
  replicas: ReplicaSet
  positions: WritePositions
  /** How long a read waits for a replica to replay its caller's position before it reads the primary. */
  waitMs: number
}

export class ReadRouter {
  /**
   * The newest position this process must read at least: its own latest write, and the position of the latest
   * change notice it passed on. So nothing it keeps in memory (kept answers, counts, pieces) is rebuilt from a
   * replica older than the change that dropped it.
   */
  #floor: bigint | null = null
  readonly replicas: ReplicaSet
  readonly #primary: pg.Pool
  readonly #positions: WritePositions
  readonly #waitMs: number
  #kinds: StatementKinds | null = null
  #loadingKinds: Promise<StatementKinds | null> | null = null
  #kindsFailedAt = -Infinity

  constructor(options: ReadRouterOptions) {
    this.replicas = options.replicas
    this.#primary = options.primary
    this.#positions = options.positions
    this.#waitMs = options.waitMs
  }

  /**
   * Which functions write, read from the catalogue once (src/db/writing-functions.ts). Not when the router is made:
   * a process may migrate through its pool after that, and the first request comes after the migrations. Null
   * while the catalogue cannot be read: every statement goes to the primary, which is tried again a second later.
   */
  statementKinds(): Promise<StatementKinds | null> | StatementKinds | null {
    if (this.#kinds) return this.#kinds
    if (this.#loadingKinds) return this.#loadingKinds
    if (performance.now() - this.#kindsFailedAt < CATALOGUE_RETRY_MS) return null
    return (this.#loadingKinds = loadStatementKinds(this.#primary).then(
      (kinds) => {
        this.#kinds = kinds
        this.#loadingKinds = null
        return kinds
      },
      () => {
        this.#kindsFailedAt = performance.now()
        this.#loadingKinds = null
        return null
      },
    ))
  }

  /** Whether the statement only reads; not while the writing functions are unknown. */
  isPlainRead(text: string): boolean {
    return this.#kinds?.isPlainRead(text) ?? false
  }

  /** The replica this read may use, or null for the primary. */
  async replicaFor(context: ReadContext): Promise<Replica | null> {
    if (context.onPrimary || !this.replicas.anyUsable()) return null
    let floor: bigint | null
    try {
      floor = await (context.floor ??= this.#positions.newest(context.keys))
    } catch {
      // The caller's position cannot be known (Redis away): only the primary is sure to have it.
      context.onPrimary = true
      return null
    }
    if (this.#floor !== null && (floor === null || this.#floor > floor)) floor = this.#floor
    const replica = await this.replicas.choose(floor, this.#waitMs)
    // One wait per request: its other reads do not wait again for a replica that did not get there.
    if (!replica) context.onPrimary = true
    return replica
  }

  /** Whether a statement that failed on the replica is sent to the primary instead. */
  retryOnPrimary(replica: Replica, error: unknown): boolean {
    const code = errorCode(error)
    if (typeof code === 'string' && RETRY_ON_PRIMARY.has(code)) return true
    if (!isDatabaseUnavailable(error) || code === '57014') return false
    this.replicas.failed(replica, error)
    return true
  }

  /** After a request's writes committed: the primary's position, kept for the caller (and this process). */
  async recordWrite(keys: readonly string[]): Promise<void> {
    const { rows } = await this.#primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')
    const lsn = parseLsn(rows[0]?.lsn)
    if (lsn === null) return
    this.#raise(lsn)
    await this.#positions.record(keys, lsn)
  }

  /**
   * A change notice arrived, and `position` is the primary's WAL position read after it: it is passed on once every
   * replica in use has replayed that far (or after REPLICA_MAX_LAG_MS, when a late replica is skipped anyway), and
   * from then on this process reads nothing older.
   */
  async noticeAt(position: string): Promise<void> {
    const lsn = parseLsn(position)
    if (lsn === null) return
    await this.replicas.replayedPast(lsn, this.replicas.maxLagMs)
    this.#raise(lsn)
  }

  status(): ReplicaStatus[] {
    return this.replicas.status()
  }

  async close(): Promise<void> {
    await Promise.all([this.replicas.close(), this.#positions.close()])
  }

  #raise(lsn: bigint): void {
    if (this.#floor === null || lsn > this.#floor) this.#floor = lsn
  }
}

const errorCode = (error: unknown) => (error as { code?: unknown }).code

const routers = new WeakMap<Kysely<Database>, ReadRouter>()

export function registerReadRouter(db: Kysely<Database>, router: ReadRouter): void {
  routers.set(db, router)
}

/** The database's read router; undefined when no replica is configured (everything goes to the primary). */
export function readRouterOf(db: Kysely<Database>): ReadRouter | undefined {
  return routers.get(db)
}

/**
 * The pool Kysely sees when replicas are configured. Its clients take a connection only for their first statement:
 * a plain read the request may send to a replica runs there on a connection lent for that statement alone; any
 * other statement pins the client to a primary connection until Kysely releases it, so a transaction (BEGIN first)
 * runs on the primary from start to end.
 */
export function routingPool(primary: PostgresPool, router: ReadRouter): PostgresPool {
  return {
    connect: async () => new RoutedClient(primary, router),
    end: () => primary.end(),
  }
}

class RoutedClient {
  #pinned: PostgresPoolClient | null = null

  constructor(
    private readonly primary: PostgresPool,
    private readonly router: ReadRouter,
  ) {}

  query = (async (text: string, parameters: ReadonlyArray<unknown>) => {
    const context = readRouting.getStore()
    const inRequest = context !== undefined && context.identified && !context.ended
    // A read a replica refused as a write (a function that writes under a read-only mark): the request wrote.
    let refusedAsWrite = false
    if (inRequest) {
      const loading = this.router.statementKinds()
      if (loading instanceof Promise) await loading
    }
    if (!this.#pinned) {
      if (inRequest && context.readOnly && !context.wrote && !isCopy(parameters) && this.router.isPlainRead(text)) {
        const replica = await this.router.replicaFor(context)
        if (replica) {
          try {
            const result = await replica.query(text, parameters)
            context.replicaStatements++
            return result
          } catch (error) {
            if (!this.router.retryOnPrimary(replica, error)) throw error
            refusedAsWrite = errorCode(error) === READ_ONLY_TRANSACTION
          }
        }
      }
      this.#pinned = await this.primary.connect()
    }
    if (context) context.primaryStatements++
    const result = await this.#pinned.query(text, parameters as unknown[])
    // Counted once it ran: a request whose writes all failed (the primary away) has no position to record.
    if (inRequest && !context.wrote && (refusedAsWrite || (!TRANSACTION_CONTROL.test(text) && !this.router.isPlainRead(text)))) {
      context.wrote = true
    }
    return result
  }) as unknown as PostgresPoolClient['query']

  release(): void {
    const pinned = this.#pinned
    this.#pinned = null
    pinned?.release()
  }
}
