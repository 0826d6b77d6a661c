import type { Kysely } from 'kysely'

/** Reserved for the search-activity work; applies nothing yet. */
export async function up(db: Kysely<unknown>): Promise<void> {
  void db
}
