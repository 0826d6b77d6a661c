import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * collection_gained_questions reaches the people who answered the collection itself (answers recorded with it),
 * at most once a day each: the answers by collection, and the notifications of that kind by recipient and
 * collection, are index probes rather than scans. The answer indexes also serve ON DELETE SET NULL when a
 * collection is deleted.
 */
const schema = `
CREATE INDEX question_votes_collection_idx ON question_votes (collection_id, user_id) WHERE collection_id IS NOT NULL;
CREATE INDEX question_choice_votes_collection_idx ON question_choice_votes (collection_id, user_id) WHERE collection_id IS NOT NULL;
CREATE INDEX notifications_collection_gained_idx ON notifications (user_id, (payload ->> 'collection'), created_at)
  WHERE kind = 'collection_gained_questions';
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, schema)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP INDEX notifications_collection_gained_idx;
DROP INDEX question_choice_votes_collection_idx;
DROP INDEX question_votes_collection_idx;
`,
  )
}
