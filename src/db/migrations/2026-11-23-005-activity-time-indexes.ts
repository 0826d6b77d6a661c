import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * advanced_stats counts answers, sign-ups and comments by time range; these indexes keep it a range
 * scan of the period asked for rather than a scan of every answer ever given.
 */
const schema = `
CREATE INDEX question_votes_modified_idx ON question_votes (modified_at);
CREATE INDEX question_choice_votes_modified_idx ON question_choice_votes (modified_at);
CREATE INDEX question_vote_history_answered_idx ON question_vote_history (answered_at);
CREATE INDEX question_choice_vote_history_answered_idx ON question_choice_vote_history (answered_at);
CREATE INDEX users_created_idx ON users (created_at);
CREATE INDEX comments_created_idx ON comments (created_at);
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, schema)
}
