import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'
import { noticeTriggerSql } from '../data-changes.ts'

/**
 * Private comment votes reach a comment's published tallies in batches of k (MIN_CELL_SIZE), as private answers reach
 * a question's figures (migration 038, docs/privacy.md, "Batches"). The stored tallies (direct_maximum /
 * direct_minimum) count every active vote at once, as before; what the published ones leave out is kept here.
 *
 * unreleased_comment_votes: one row per person with an unreleased change on a comment, made at their first such
 * change (by trigger, whatever path wrote the vote) and holding what the published tallies still count of them:
 * nothing (released_value null) or the private vote they had (its value). A person's state on a comment is their
 * active vote (superseded votes stay as inactive rows, spec 2.10). A change that brings them back to it removes the
 * row, and so does going public from nothing private (a public vote shows at once). When k people have a change
 * waiting on a comment, its rows go: the k changes are released together. A change of vote is two writes (the
 * superseded vote made inactive, then the new one), so the k-th is counted when its transaction commits (a deferred
 * trigger), never between the two. Lowering k releases the comments it reaches.
 *
 * published_comment_corrections: what to add to a comment's stored tallies to get its published ones: each
 * unreleased person's active vote taken off, and their released private vote put back. The listings, the orderings
 * by a tally and general_stats all read it.
 *
 * Before batches a comment's private votes counted from its k-th (rule 1): those of comments with fewer are
 * unreleased, as nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE TABLE unreleased_comment_votes (
  comment_id integer NOT NULL REFERENCES comments (id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  released_value smallint CHECK (released_value IN (1, 5)),
  since timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (comment_id, user_id)
);
${noticeTriggerSql('unreleased_comment_votes')};

INSERT INTO unreleased_comment_votes (comment_id, user_id)
SELECT v.comment_id, v.user_id FROM comment_votes v
WHERE v.active AND v.private AND v.comment_id IN (
  SELECT comment_id FROM comment_votes WHERE active AND private
  GROUP BY comment_id HAVING count(*) < (SELECT min_cell_size FROM disclosure_settings)
);

-- After a write that changes a person's active vote where a private vote is involved, before or after. Votes on one
-- comment are written one after another (each write locks the comment first).
CREATE FUNCTION follow_unreleased_comment_vote() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  c integer;
  u integer;
  was_active boolean := false;
  was_private boolean := false;
  was_value smallint;
  is_active boolean := false;
  is_private boolean := false;
  is_value smallint;
  entry unreleased_comment_votes%ROWTYPE;
BEGIN
  IF TG_OP = 'DELETE' THEN c := OLD.comment_id; u := OLD.user_id; ELSE c := NEW.comment_id; u := NEW.user_id; END IF;
  IF TG_OP <> 'INSERT' AND OLD.active THEN was_active := true; was_private := OLD.private; was_value := OLD.value; END IF;
  IF TG_OP <> 'DELETE' AND NEW.active THEN is_active := true; is_private := NEW.private; is_value := NEW.value; END IF;
  IF was_active = is_active AND was_private = is_private AND was_value IS NOT DISTINCT FROM is_value THEN RETURN NULL; END IF;
  -- A comment (or person) being removed takes its rows with it.
  IF TG_OP = 'DELETE' AND (NOT EXISTS (SELECT FROM comments WHERE id = c) OR NOT EXISTS (SELECT FROM users WHERE id = u)) THEN
    RETURN NULL;
  END IF;
  SELECT * INTO entry FROM unreleased_comment_votes WHERE comment_id = c AND user_id = u FOR UPDATE;
  IF NOT FOUND THEN
    -- What the tallies count of them is what was there before this write: a private vote, or nothing private.
    INSERT INTO unreleased_comment_votes (comment_id, user_id, released_value)
    VALUES (c, u, CASE WHEN was_private THEN was_value END)
    RETURNING * INTO entry;
  END IF;
  IF (entry.released_value IS NULL AND NOT is_private) OR (is_private AND is_value = entry.released_value) THEN
    DELETE FROM unreleased_comment_votes WHERE comment_id = c AND user_id = u;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER comment_votes_unreleased_insert AFTER INSERT ON comment_votes
  FOR EACH ROW WHEN (NEW.active AND NEW.private) EXECUTE FUNCTION follow_unreleased_comment_vote();
CREATE TRIGGER comment_votes_unreleased_update AFTER UPDATE ON comment_votes
  FOR EACH ROW WHEN ((OLD.active AND OLD.private) OR (NEW.active AND NEW.private)) EXECUTE FUNCTION follow_unreleased_comment_vote();
CREATE TRIGGER comment_votes_unreleased_delete AFTER DELETE ON comment_votes
  FOR EACH ROW WHEN (OLD.active AND OLD.private) EXECUTE FUNCTION follow_unreleased_comment_vote();

-- At the commit of a transaction that gave someone a waiting change: the k-th releases the comment.
CREATE FUNCTION release_comment_vote_batch() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k integer;
BEGIN
  SELECT min_cell_size INTO k FROM disclosure_settings;
  IF (SELECT count(*) FROM (SELECT 1 FROM unreleased_comment_votes WHERE comment_id = NEW.comment_id LIMIT k) AS w) >= k THEN
    DELETE FROM unreleased_comment_votes WHERE comment_id = NEW.comment_id;
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER unreleased_comment_votes_batch AFTER INSERT ON unreleased_comment_votes
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION release_comment_vote_batch();

CREATE FUNCTION release_comment_votes_at_k() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM unreleased_comment_votes WHERE comment_id IN (
    SELECT comment_id FROM unreleased_comment_votes GROUP BY comment_id HAVING count(*) >= NEW.min_cell_size);
  RETURN NULL;
END $$;
CREATE TRIGGER disclosure_settings_comment_votes AFTER UPDATE ON disclosure_settings
  FOR EACH ROW WHEN (NEW.min_cell_size < OLD.min_cell_size) EXECUTE FUNCTION release_comment_votes_at_k();

CREATE FUNCTION published_comment_corrections(p_comment integer) RETURNS TABLE (up integer, down integer)
LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum((r.released_value IS NOT DISTINCT FROM 5)::integer - (v.value IS NOT DISTINCT FROM 5)::integer), 0)::integer,
         coalesce(sum((r.released_value IS NOT DISTINCT FROM 1)::integer - (v.value IS NOT DISTINCT FROM 1)::integer), 0)::integer
  FROM unreleased_comment_votes r
  LEFT JOIN comment_votes v ON v.comment_id = r.comment_id AND v.user_id = r.user_id AND v.active
  WHERE r.comment_id = p_comment
$$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP FUNCTION published_comment_corrections(integer);
DROP TRIGGER disclosure_settings_comment_votes ON disclosure_settings;
DROP FUNCTION release_comment_votes_at_k();
DROP TRIGGER comment_votes_unreleased_delete ON comment_votes;
DROP TRIGGER comment_votes_unreleased_update ON comment_votes;
DROP TRIGGER comment_votes_unreleased_insert ON comment_votes;
DROP FUNCTION follow_unreleased_comment_vote();
DROP TABLE unreleased_comment_votes;
DROP FUNCTION release_comment_vote_batch();
`,
  )
}
