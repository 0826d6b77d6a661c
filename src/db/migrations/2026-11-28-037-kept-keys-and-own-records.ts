import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/** Whether the transaction leaves its notices to its process (migration 023): the answer calls do. */
const DEFERRED = `current_setting('civic.notices_after_commit', true) IS DISTINCT FROM 'on'`

/**
 * What processes keep in memory beside sign-in tokens (migration 024), and the notices that keep it exact:
 * - application keys: a revoked, re-hashed or removed key is announced on `credentials_changed` as `app-key:<id>`;
 * - each signed-in person's own fields (their answers, follow links and drafts): a change announces the people it
 *   touches on `own_changed`, as a comma-separated list of user ids, or an empty payload for "anyone" (a bulk
 *   change, or an answer table written outside the answer calls). The answer calls announce their voter from their
 *   process after the commit instead, as they do their other notices.
 * And the question set's version (migration 026) also moves when a question changes author, so walks filtered by
 * author stay exact, and each move is announced on `question_set`, so processes keep the version in memory.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION notify_app_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('credentials_changed', 'app-key:' || OLD.id);
  RETURN NULL;
END $$;
CREATE TRIGGER app_keys_credentials AFTER UPDATE OF revoked_at, key_hash OR DELETE ON app_keys
  FOR EACH ROW EXECUTE FUNCTION notify_app_key_changed();

-- Everyone's own fields may have changed: the kept ones are dropped.
CREATE FUNCTION notify_anyone_own_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('own_changed', '');
  RETURN NULL;
END $$;

-- The people a statement touched, read from its transition tables (old_rows, new_rows): up to 100 by id, more as
-- anyone.
CREATE FUNCTION notify_own_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  people integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT user_id) INTO people FROM new_rows;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT user_id) INTO people FROM old_rows;
  ELSE
    SELECT array_agg(DISTINCT user_id) INTO people FROM (SELECT user_id FROM old_rows UNION ALL SELECT user_id FROM new_rows) AS rows;
  END IF;
  IF people IS NULL THEN RETURN NULL; END IF;
  PERFORM pg_notify('own_changed', CASE WHEN cardinality(people) <= 100 THEN array_to_string(people, ',') ELSE '' END);
  RETURN NULL;
END $$;

CREATE FUNCTION notify_author_own_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('own_changed', OLD.user_id::text);
  PERFORM pg_notify('own_changed', NEW.user_id::text);
  RETURN NULL;
END $$;

-- Answers: only writers other than the answer calls (imports, liquid recomputation never touches these columns).
CREATE TRIGGER question_votes_own AFTER INSERT OR DELETE OR UPDATE OF user_id, question_id, value, skipped, private, importance, modified_at
  ON question_votes FOR EACH STATEMENT WHEN (${DEFERRED}) EXECUTE FUNCTION notify_anyone_own_changed();
CREATE TRIGGER question_choice_votes_own AFTER INSERT OR DELETE OR UPDATE OF user_id, question_id, choice_id, value, skipped, private, modified_at
  ON question_choice_votes FOR EACH STATEMENT WHEN (${DEFERRED}) EXECUTE FUNCTION notify_anyone_own_changed();

CREATE TRIGGER following_users_own_insert AFTER INSERT ON following_users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_own_changed();
CREATE TRIGGER following_users_own_update AFTER UPDATE ON following_users
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_own_changed();
CREATE TRIGGER following_users_own_delete AFTER DELETE ON following_users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_own_changed();

-- Questions: who has drafts.
CREATE TRIGGER questions_own_insert AFTER INSERT ON questions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_own_changed();
CREATE TRIGGER questions_own_delete AFTER DELETE ON questions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_own_changed();
CREATE TRIGGER questions_own_update AFTER UPDATE OF publish, user_id ON questions FOR EACH ROW
  WHEN (OLD.publish IS DISTINCT FROM NEW.publish OR OLD.user_id IS DISTINCT FROM NEW.user_id)
  EXECUTE FUNCTION notify_author_own_changed();

CREATE TRIGGER question_votes_own_truncate AFTER TRUNCATE ON question_votes FOR EACH STATEMENT EXECUTE FUNCTION notify_anyone_own_changed();
CREATE TRIGGER question_choice_votes_own_truncate AFTER TRUNCATE ON question_choice_votes FOR EACH STATEMENT EXECUTE FUNCTION notify_anyone_own_changed();
CREATE TRIGGER following_users_own_truncate AFTER TRUNCATE ON following_users FOR EACH STATEMENT EXECUTE FUNCTION notify_anyone_own_changed();
CREATE TRIGGER questions_own_truncate AFTER TRUNCATE ON questions FOR EACH STATEMENT EXECUTE FUNCTION notify_anyone_own_changed();

CREATE OR REPLACE FUNCTION bump_question_set_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('civic.question_set_bumped', true) = 'on' THEN RETURN NULL; END IF;
  PERFORM set_config('civic.question_set_bumped', 'on', true);
  UPDATE question_set_version SET version = version + 1;
  PERFORM pg_notify('question_set', '');
  RETURN NULL;
END $$;

DROP TRIGGER questions_question_set ON questions;
CREATE CONSTRAINT TRIGGER questions_question_set
  AFTER INSERT OR DELETE OR UPDATE OF question, description, slug, subtype, publish, start_at, end_at, user_id ON questions
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_question_set_version();
`,
  )
}
