import { Migrator, type Kysely, type MigrationResultSet } from 'kysely'
import { migrations } from './migrations/index.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's Migrator takes Kysely<any>: migrations run before the tables the Database type describes exist
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  const result: MigrationResultSet = await migrator.migrateToLatest()
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')
    const reason = result.error instanceof Error ? result.error.message : String(result.error)
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${reason}`)
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
