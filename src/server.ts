import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import type { Config } from './config.ts'
import { connectDatabase, connectWhenReachable, type DatabaseHandle } from './db/connect.ts'
import { migrateToLatest } from './db/migrate.ts'
import { startMetricsServer, type MetricsServer } from './http/metrics.ts'

export interface RunningServer {
  app: FastifyInstance
  database: DatabaseHandle
  url: string
  /** host:port of the metrics (METRICS_PORT); null when they are off. */
  metrics: string | null
  stop(): Promise<void>
}

export interface ServerOptions {
  /**
   * `serve --workers`: the worker's place (0 to N-1). It serves its metrics on METRICS_PORT plus this, a port of its
   * own, so that Prometheus scrapes each worker; the public port is shared.
   */
  workerSlot?: number
}

/** One plain line on stderr: the logger does not exist yet while the database is awaited. */
const startupLine = (line: string) => process.stderr.write(`${line}\n`)

/**
 * Waits for the database (retrying for DB_STARTUP_TIMEOUT_S), migrates it, and opens the pool requests use.
 * Migrations run on a connection of their own, without the requests' statement timeout: they may build an index
 * over millions of rows.
 */
export async function openServingDatabase(config: Config, onConnectionError: (error: Error) => void): Promise<DatabaseHandle> {
  const base = { databaseUrl: config.databaseUrl, dataDir: config.dataDir, connectTimeoutMs: config.dbConnectTimeoutMs }
  // Migrations hold session-level locks: on the primary itself, not through a transaction pooler.
  const setup = await connectWhenReachable(
    { ...base, databaseUrl: config.databaseDirectUrl ?? config.databaseUrl, poolSize: 1 },
    { timeoutMs: config.dbStartupTimeoutS * 1000, log: startupLine },
  )
  if (setup.kind === 'pglite') {
    await migrateToLatest(setup.db)
    return setup
  }
  try {
    await migrateToLatest(setup.db)
  } finally {
    await setup.close()
  }
  return connectDatabase({
    ...base,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    preparedStatements: config.dbPreparedStatements,
    onConnectionError,
    directUrl: config.databaseDirectUrl,
    replicaUrls: config.databaseReplicaUrls,
    replicaMaxLagMs: config.replicaMaxLagMs,
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
  })
}

/** The only place that binds a port: migrate, build, listen, and stop cleanly on SIGTERM/SIGINT. */
export async function startServer(config: Config, database?: DatabaseHandle, options: ServerOptions = {}): Promise<RunningServer> {
  // The pool exists before the app and its logger: its listener finds the logger here once there is one.
  const logger: { current?: FastifyBaseLogger } = {}
  // Broken connections are replaced by the pool; the log says when the database went away, in a line per
  // connection without a stack: an outage breaks every connection of every process at once.
  const onConnectionError = (error: Error) =>
    logger.current?.warn({ code: (error as { code?: string }).code }, `database connection lost: ${error.message}`)
  let handle: DatabaseHandle
  if (database) {
    handle = database
    await migrateToLatest(handle.db)
  } else {
    handle = await openServingDatabase(config, onConnectionError)
  }
  // Ready before the routes' schemas are compiled: they compile between the first requests (src/http/schema-compilers.ts).
  const app = await buildApp({ config, db: handle.db, database: handle, compileSchemasInBackground: true })
  logger.current = app.log
  // Metrics on their own address, never the public port; bound first, so a port taken stops the start.
  let metrics: MetricsServer | null = null
  if (config.metrics.port > 0) {
    const port = config.metrics.port + (options.workerSlot ?? 0)
    try {
      metrics = await startMetricsServer(config.metrics.host, port, { exclusive: options.workerSlot !== undefined })
    } catch (error) {
      await app.close()
      await handle.close()
      throw new Error(`METRICS_PORT: cannot serve metrics on ${config.metrics.host}:${port}: ${(error as Error).message}`, { cause: error })
    }
    app.log.info(`metrics on http://${metrics.address}/metrics`)
  }
  let address: string
  try {
    address = await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    await metrics?.close()
    throw error
  }
  let stopping: Promise<void> | null = null
  const stop = () =>
    (stopping ??= (async () => {
      // Out of the balancer's rotation first (/readyz fails), still serving while its checks notice; then the
      // requests in flight finish, live streams end with a reconnect hint, and the database closes.
      app.draining.since = Date.now()
      if (config.shutdownDrainMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs))
      await app.close()
      await handle.close()
      // Last, so a scrape during the drain still reads the process.
      await metrics?.close()
    })())
  // Every signal is handled (stop runs once): a second SIGTERM during the drain must not end the process abruptly.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      app.log.info(`${signal} received, closing`)
      stop().then(
        () => process.exit(0),
        (error) => {
          app.log.error({ err: error }, 'shutdown failed')
          process.exit(1)
        },
      )
    })
  }
  return { app, database: handle, url: address, metrics: metrics?.address ?? null, stop }
}
