import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * A multiple-choice question has one current answer per user: choosing another option replaces the
 * earlier pick (which moves to question_choice_vote_history). The index on (question_id, user_id)
 * becomes unique so that two picks by one user cannot both be current.
 */
const schema = `
CREATE UNIQUE INDEX question_choice_votes_one_per_question ON question_choice_votes (question_id, user_id);
DROP INDEX question_choice_votes_question_idx;
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, schema)
}
