import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * The next-question service counts every open question of a query on each call: a narrow index over the
 * published ones lets that count, and the id-ordered walk, read the index alone instead of the wide rows.
 * A user's choice answers by question, for the anti-join the unanswered count runs over all of them.
 */
const schema = `
CREATE INDEX questions_open_idx ON questions (id) INCLUDE (user_id, start_at, end_at) WHERE publish;
CREATE INDEX question_choice_votes_user_question_idx ON question_choice_votes (user_id, question_id);
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, schema)
}
