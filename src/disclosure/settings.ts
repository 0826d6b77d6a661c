import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/database.ts'

/**
 * The database keeps k (MIN_CELL_SIZE) beside the private answers it releases in batches (migration 038); each
 * process sets it from its configuration at start. Setting a lower k releases the questions it reaches at once.
 */
export async function applyMinCellSize(db: Kysely<Database>, k: number): Promise<void> {
  await sql`SELECT set_min_cell_size(${k}::integer)`.execute(db)
}
