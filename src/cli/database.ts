import type { Config } from '../config.ts'
import { connectDatabase, type DatabaseHandle } from '../db/connect.ts'
import { migrateToLatest } from '../db/migrate.ts'

/**
 * The database migrated, then `work` on it. Migrations hold a session-level lock, so behind a transaction pooler
 * they run on the primary itself (DATABASE_DIRECT_URL) and the work through the pooler.
 */
export async function withMigratedDatabase<T>(config: Config, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  if (config.databaseDirectUrl) await migrateOnPrimary(config)
  return withDatabase(config, async (handle) => {
    if (!config.databaseDirectUrl) await migrateToLatest(handle.db)
    return work(handle)
  })
}

export const migrateOnPrimary = (config: Config) =>
  withDatabase({ ...config, databaseUrl: config.databaseDirectUrl ?? config.databaseUrl }, ({ db }) => migrateToLatest(db))

async function withDatabase<T>(config: Config, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await connectDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    connectTimeoutMs: config.dbConnectTimeoutMs,
  })
  try {
    return await work(handle)
  } finally {
    await handle.close()
  }
}
