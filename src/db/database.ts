/** The database as Kysely sees it; the tables come from the migrations (scripts/generate-db-types.sh). */
export type { DB as Database } from './schema.generated.ts'
export type * from './schema.generated.ts'
