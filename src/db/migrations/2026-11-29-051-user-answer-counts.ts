import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/** The answer counters and times that every answer moves, kept until now on the user's row. */
const COUNTERS = [
  'count_votes',
  'count_question_votes',
  'count_choice_votes',
  'public_count_votes',
  'public_count_question_votes',
  'public_count_choice_votes',
]
const TIMES = ['last_answer_time', 'public_last_answer_time']

/**
 * An answer's counters move in a narrow row of their own instead of the user's. Every answer rewrote the user's row:
 * 53 columns, 350 bytes, with ten indexes (one over a text search expression) that a new version off its page must
 * all enter again. The same update on a row of the eight counters alone took 0.015–0.03 ms instead of 0.15 (300
 * people, the fastest of ten batches, demo seed), a fifth of an answer's server time. One row per user, keyed by the
 * user's id, made with the user (a trigger) and gone with them; readers join it (src/modules/users/users.repository.ts).
 * The previous release reads and writes the columns on `users`: an upgrade across 051 stops every process.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `CREATE TABLE user_answer_counts (
  id integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  ${COUNTERS.map((c) => `${c} integer NOT NULL DEFAULT 0`).join(',\n  ')},
  ${TIMES.map((c) => `${c} timestamptz`).join(',\n  ')}
) WITH (fillfactor = 70);
INSERT INTO user_answer_counts (id, ${[...COUNTERS, ...TIMES].join(', ')})
  SELECT id, ${[...COUNTERS, ...TIMES].join(', ')} FROM users;
ALTER TABLE users ${[...COUNTERS, ...TIMES].map((c) => `DROP COLUMN ${c}`).join(', ')};

CREATE FUNCTION make_user_answer_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO user_answer_counts (id) SELECT id FROM new_users;
  RETURN NULL;
END $$;
CREATE TRIGGER users_answer_counts AFTER INSERT ON users REFERENCING NEW TABLE AS new_users
  FOR EACH STATEMENT EXECUTE FUNCTION make_user_answer_counts();
CREATE TRIGGER user_answer_counts_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON user_answer_counts
  FOR EACH STATEMENT EXECUTE FUNCTION notify_data_changed();

CREATE OR REPLACE FUNCTION count_user_answer(p_user integer, p_pick boolean, p_was boolean, p_now boolean, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  answers integer := (p_now IS NOT NULL)::integer - (p_was IS NOT NULL)::integer;
  shown integer := coalesce((NOT p_now)::integer, 0) - coalesce((NOT p_was)::integer, 0);
BEGIN
  IF p_now IS NULL OR (NOT p_was AND p_now) THEN
    PERFORM FROM user_answer_counts WHERE id = p_user FOR NO KEY UPDATE;
  END IF;
  UPDATE user_answer_counts SET
    count_question_votes = count_question_votes + CASE WHEN p_pick THEN 0 ELSE answers END,
    count_choice_votes = count_choice_votes + CASE WHEN p_pick THEN answers ELSE 0 END,
    count_votes = count_votes + answers,
    public_count_question_votes = public_count_question_votes + CASE WHEN p_pick THEN 0 ELSE shown END,
    public_count_choice_votes = public_count_choice_votes + CASE WHEN p_pick THEN shown ELSE 0 END,
    public_count_votes = public_count_votes + shown,
    last_answer_time = CASE WHEN p_now IS NOT NULL THEN greatest(last_answer_time, p_at) ELSE greatest(
      (SELECT max(modified_at) FROM question_votes WHERE user_id = p_user),
      (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = p_user)) END,
    public_last_answer_time = CASE
      WHEN NOT p_now THEN greatest(public_last_answer_time, p_at)
      WHEN NOT p_was THEN greatest(
        (SELECT max(modified_at) FROM question_votes WHERE user_id = p_user AND NOT private),
        (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = p_user AND NOT private))
      ELSE public_last_answer_time END
  WHERE id = p_user;
END $$;
`,
  )
}

export async function down(): Promise<void> {
  throw new Error('2026-11-29-051-user-answer-counts cannot be undone: restore a backup taken before it')
}
