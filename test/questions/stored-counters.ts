import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'

/** What the writes stored equals what a recomputation from the raw rows gives, for every stored figure and counter. */
export async function assertStoredEqualsRecomputed(db: Kysely<Database>): Promise<void> {
  const differences = await storedFigureDifferences(db)
  assert.deepEqual(differences.slice(0, 20), [], `${differences.length} stored values differ from a recomputation`)
}
