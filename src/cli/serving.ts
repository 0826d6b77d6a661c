import v8 from 'node:v8'
import { HEAP_GROWING_PERCENT, heapMiBFor, nodeFlagGiven, type Config } from '../config.ts'
import { connectWhenReachable } from '../db/connect.ts'
import { migrateToLatest } from '../db/migrate.ts'
import { appKeysRepository } from '../modules/app-keys/app-keys.repository.ts'
import { parseCommandArgs, UsageError, type Command } from './command.ts'
import { migrateOnPrimary } from './database.ts'

/** The HTTP app (every route module) loads only for the commands that serve: the others start in a fraction of the time. */
const serverModule = () => import('../server.ts')

export const migrate: Command = {
  name: 'migrate',
  usage: [['migrate', 'apply the database migrations']],
  async run(config) {
    const applied = await migrateOnPrimary(config)
    console.error(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date')
  },
}

export const serve: Command = {
  name: 'serve',
  usage: [
    ['serve [--workers N]', 'migrate, then serve the API on HOST:PORT; --workers runs N', 'processes on the port (PostgreSQL server only)'],
  ],
  async run(config, args) {
    const { values } = parseCommandArgs('serve', args, { workers: { type: 'string' } })
    // Read by V8 at each collection, so it takes effect after start (unlike the heap's size).
    if (!nodeFlagGiven('heap-growing-percent')) v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
    let workers = 1
    if (values.workers !== undefined) {
      if (!/^\d+$/.test(values.workers) || Number(values.workers) < 1 || Number(values.workers) > 64)
        throw new UsageError(`--workers must be a whole number from 1 to 64, not "${values.workers}"`)
      workers = Number(values.workers)
    }
    if (workers === 1) {
      await (await serverModule()).startServer(config)
      // V8 sizes its heap from the machine's memory and collects lazily far below it (docs/operations.md, Memory).
      if (!nodeFlagGiven('max-old-space-size'))
        console.error(
          `serve: no heap size given; NODE_OPTIONS=--max-old-space-size=${heapMiBFor(config)} bounds this process to what it keeps`,
        )
      return -1
    }
    // The embedded database is one process's: only a server is shared.
    if (!config.databaseUrl)
      throw new UsageError('serve --workers needs a PostgreSQL server (DATABASE_URL): the embedded database has one process')
    // Each worker serves its metrics on a port of its own: METRICS_PORT to METRICS_PORT + N - 1.
    const { port: metricsPort } = config.metrics
    if (metricsPort > 0 && (metricsPort + workers - 1 > 65535 || (config.port >= metricsPort && config.port < metricsPort + workers)))
      throw new UsageError(
        `serve --workers ${workers} serves metrics on ports ${metricsPort} to ${metricsPort + workers - 1}, one per worker: they must end by 65535 and leave out PORT (${config.port})`,
      )
    const start = async (slot: number) => (await serverModule()).startServer(config, undefined, { workerSlot: slot })
    // Each worker waits for the database and migrates as a single serve does; the migrator's lock makes one of
    // them apply what is pending and the others find it done.
    const { serveWorkers } = await import('../workers.ts')
    await serveWorkers(config, workers, start)
    return -1
  },
}

export const demo: Command = {
  name: 'demo',
  usage: [['demo', 'migrate, seed the demo data if empty, create a key and serve']],
  async run(config: Config) {
    const startup = { timeoutMs: config.dbStartupTimeoutS * 1000, log: (line: string) => console.error(line) }
    const handle = await connectWhenReachable(
      // Seeding and migrating hold session state: on the primary itself behind a pooler.
      { databaseUrl: config.databaseDirectUrl ?? config.databaseUrl, dataDir: config.dataDir, connectTimeoutMs: config.dbConnectTimeoutMs },
      startup,
    )
    await migrateToLatest(handle.db)
    const { isDatabaseEmpty } = await import('../seed/seed.ts')
    if (await isDatabaseEmpty(handle.db)) {
      const { seedWithProgress } = await import('../seed/progress.ts')
      await seedWithProgress(handle.db, { scale: 'demo', seed: 1, force: false })
    }
    const { key } = await appKeysRepository(handle.db).create('demo')
    // On a server, serve opens its own pool, with the requests' statement timeout the seeding above must not have.
    if (handle.kind === 'postgres') await handle.close()
    const server = await serverModule().then(({ startServer }) => startServer(config, handle.kind === 'pglite' ? handle : undefined))
    const root = `${config.publicUrl ?? server.url.replace('0.0.0.0', '127.0.0.1')}/api/?AppAuthorization=${key}`
    console.log(`\nCivic Survey API is running.\n  API root: ${root}\n  Browsable: ${root}&format=api\nPress Ctrl+C to stop.\n`)
    return -1
  },
}
