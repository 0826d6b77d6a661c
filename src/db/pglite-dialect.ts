import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely'
import type { PGlite } from '@electric-sql/pglite'
import { copyThroughPglite, isCopy } from './copy-in.ts'

/**
 * PGlite has one session. Kysely's transactions are BEGIN ... COMMIT on a connection, so the
 * connection is handed to one user at a time; otherwise a concurrent request would run inside
 * another request's transaction.
 */
class SessionLock {
  private tail: Promise<void> = Promise.resolve()

  acquire(): Promise<() => void> {
    let release!: () => void
    const next = new Promise<void>((resolve) => (release = resolve))
    const ready = this.tail.then(() => release)
    this.tail = this.tail.then(() => next)
    return ready
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly client: PGlite) {}

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (isCopy(compiled.parameters)) {
      await copyThroughPglite(this.client, compiled.sql, compiled.parameters[0])
      return { rows: [] }
    }
    const result = await this.client.query<R>(compiled.sql, [...compiled.parameters])
    const affected = result.affectedRows
    return {
      rows: result.rows,
      numAffectedRows: affected === undefined ? undefined : BigInt(affected),
    }
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not stream query results')
  }
}

class PGliteDriver implements Driver {
  private readonly lock = new SessionLock()
  private readonly releases = new WeakMap<DatabaseConnection, () => void>()
  private readonly connection: PGliteConnection

  constructor(private readonly client: PGlite) {
    this.connection = new PGliteConnection(client)
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.lock.acquire()
    // One connection object per holder so the release is tied to who acquired it.
    const held = Object.create(this.connection) as PGliteConnection
    this.releases.set(held, release)
    return held
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN'))
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'))
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('ROLLBACK'))
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.releases.get(connection)?.()
    this.releases.delete(connection)
  }

  async destroy(): Promise<void> {
    if (!this.client.closed) await this.client.close()
  }
}

export class PGliteDialect implements Dialect {
  constructor(private readonly client: PGlite) {}
  createAdapter() {
    return new PostgresAdapter()
  }
  createDriver(): Driver {
    return new PGliteDriver(this.client)
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the signature of Kysely's Dialect interface
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db)
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler()
  }
}
