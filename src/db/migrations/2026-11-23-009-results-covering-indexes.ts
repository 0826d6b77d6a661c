import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Breakdowns and weighted results read every answer of a question with its author's age, gender and areas.
 * These indexes carry those columns, so a settled table answers from the indexes alone, in user order (a merge
 * with the users), instead of one heap page per answer. Comparisons probe the same indexes for other people's
 * public answers to a person's questions, hence `private`, and read each person's answers by (user, question):
 * those indexes carry the answer and its privacy too.
 */
const schema = `
DROP INDEX question_votes_question_idx;
CREATE INDEX question_votes_question_idx ON question_votes (question_id, user_id) INCLUDE (id, value, created_at, private);
DROP INDEX question_choice_votes_one_per_question;
CREATE UNIQUE INDEX question_choice_votes_one_per_question ON question_choice_votes (question_id, user_id)
  INCLUDE (id, choice_id, value, created_at, private);
ALTER TABLE question_votes DROP CONSTRAINT question_votes_unique,
  ADD CONSTRAINT question_votes_unique UNIQUE (user_id, question_id) INCLUDE (value, private);
DROP INDEX question_choice_votes_user_question_idx;
CREATE INDEX question_choice_votes_user_question_idx ON question_choice_votes (user_id, question_id) INCLUDE (choice_id, value, private);
CREATE INDEX users_demographics_idx ON users (id) INCLUDE (dob, gender, country_id, region_id, district_id);
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, schema)
}
