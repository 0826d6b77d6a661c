import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import type { Config } from './config.ts'
import { connectDatabase, type DatabaseHandle } from './db/connect.ts'
import { migrateToLatest } from './db/migrate.ts'

export interface RunningServer {
  app: FastifyInstance
  database: DatabaseHandle
  url: string
  stop(): Promise<void>
}

/** The only place that binds a port: migrate, build, listen, and stop cleanly on SIGTERM/SIGINT. */
export async function startServer(config: Config, database?: DatabaseHandle): Promise<RunningServer> {
  const handle = database ?? (await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }))
  await migrateToLatest(handle.db)
  const app = await buildApp({ config, db: handle.db })
  const address = await app.listen({ port: config.port, host: config.host })
  let stopping: Promise<void> | null = null
  const stop = () =>
    (stopping ??= (async () => {
      await app.close()
      await handle.close()
    })())
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
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
  return { app, database: handle, url: address, stop }
}
