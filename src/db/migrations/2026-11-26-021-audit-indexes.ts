import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * The staff audit log filtered by author (`GET /api/private_answer_reads/?author=`): whose private votes a read
 * showed is an array, matched with `authors @> ARRAY[id]`, which a GIN index answers without reading the log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, `CREATE INDEX private_answer_reads_authors_idx ON private_answer_reads USING gin (authors);`)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(db, `DROP INDEX private_answer_reads_authors_idx;`)
}
