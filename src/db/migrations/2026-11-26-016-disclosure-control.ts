import type { Kysely } from 'kysely'
import { noticeTriggerSql } from '../data-changes.ts'
import { runScript } from '../script.ts'

/**
 * Disclosure control (docs/privacy.md):
 * - the answer counters and time that other people see follow public answers only, so they are kept apart from the
 *   author's own (which count every answer), with the same definitions and filled from the answers already there;
 * - every read of private answers by staff is written to an audit log that staff can list;
 * - a question's private answers are found without reading its public ones (a question's figures count its private
 *   answers only once it holds MIN_CELL_SIZE of them).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
ALTER TABLE users
  ADD COLUMN public_count_votes integer NOT NULL DEFAULT 0,
  ADD COLUMN public_count_question_votes integer NOT NULL DEFAULT 0,
  ADD COLUMN public_count_choice_votes integer NOT NULL DEFAULT 0,
  ADD COLUMN public_last_answer_time timestamptz;

UPDATE users u SET
  public_count_question_votes = coalesce(qv.n, 0),
  public_count_choice_votes = coalesce(cv.n, 0),
  public_count_votes = coalesce(qv.n, 0) + coalesce(cv.n, 0),
  public_last_answer_time = greatest(qv.last, cv.last)
FROM users x
  LEFT JOIN (SELECT user_id, count(*) AS n, max(modified_at) AS last FROM question_votes WHERE NOT private GROUP BY user_id) qv
    ON qv.user_id = x.id
  LEFT JOIN (SELECT user_id, count(*) AS n, max(modified_at) AS last FROM question_choice_votes WHERE NOT private GROUP BY user_id) cv
    ON cv.user_id = x.id
WHERE u.id = x.id AND (qv.n IS NOT NULL OR cv.n IS NOT NULL);

CREATE TABLE private_answer_reads (
  id bigserial PRIMARY KEY,
  staff_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  read_at timestamptz NOT NULL DEFAULT now(),
  method text NOT NULL,
  path text NOT NULL,
  question_vote_ids integer[] NOT NULL DEFAULT '{}',
  choice_vote_ids integer[] NOT NULL DEFAULT '{}',
  authors integer[] NOT NULL DEFAULT '{}'
);
CREATE INDEX private_answer_reads_time_idx ON private_answer_reads (read_at, id);
CREATE INDEX private_answer_reads_staff_idx ON private_answer_reads (staff_id, read_at);
${noticeTriggerSql('private_answer_reads')};

CREATE INDEX question_votes_private_idx ON question_votes (question_id) INCLUDE (value, skipped, liquid_weight) WHERE private;
CREATE INDEX question_choice_votes_private_idx ON question_choice_votes (question_id)
  INCLUDE (choice_id, value, skipped, liquid_weight) WHERE private;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP INDEX question_choice_votes_private_idx;
DROP INDEX question_votes_private_idx;
DROP TABLE private_answer_reads;
ALTER TABLE users DROP COLUMN public_count_votes, DROP COLUMN public_count_question_votes,
  DROP COLUMN public_count_choice_votes, DROP COLUMN public_last_answer_time;
`,
  )
}
