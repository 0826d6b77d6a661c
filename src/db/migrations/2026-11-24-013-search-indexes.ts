import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * What /api/search/ matches in each table besides questions (which keep a stored search_vector): the title weighs
 * A and the description B, as for questions, so a title match ranks above a description match. Names of people and
 * places are not English words: they are matched as written ('simple'), without stemming.
 * The migration indexes exactly these expressions; the query must repeat them word for word to use the indexes.
 */
export const SEARCH_VECTORS = {
  question_collections: `setweight(to_tsvector('english', name), 'A') || setweight(to_tsvector('english', coalesce("desc", '')), 'B')`,
  users: `setweight(to_tsvector('simple', username || ' ' || first_name || ' ' || last_name), 'A') || setweight(to_tsvector('english', bio), 'B')`,
  tags: `setweight(to_tsvector('english', text), 'A')`,
  areas: `setweight(to_tsvector('simple', name), 'A')`,
} as const

/** One GIN index per searched expression, so that /api/search/ reads only the matching rows of each table. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    Object.entries(SEARCH_VECTORS)
      .map(([table, vector]) => `CREATE INDEX ${table}_search_idx ON ${table} USING gin ((${vector}));`)
      .join('\n'),
  )
}
