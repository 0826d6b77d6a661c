import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'
import { PRIVATE_TAG_VOTES_FILL_SQL, PRIVATE_TAG_VOTES_SQL } from './2026-11-28-041-published-tag-counts.ts'

/**
 * A tag's votes_count as others read it counts its questions' likert answers as released (docs/privacy.md,
 * "Batches"), as the questions' own figures do, instead of rule 1 over the tag (migration 041). So a private answer,
 * its change or its withdrawal moves a tag's count only with its question's batch, never at its own moment.
 *
 * - unreleased_vote_count(q): how many more likert answers q holds now than it shows as released, over the people
 *   with an unreleased change on it (migration 038): their current answer counted, their released one taken off.
 *   The one definition, read by the triggers below and by `civic-survey check`/`recompute`.
 * - questions.unreleased_votes_count: that number as last settled; tags.unreleased_votes_count: its sum over the
 *   questions the tag carries (as a tag or as their topic); tags.published_votes_count = votes_count minus it.
 * - settle_unreleased_votes(q) brings the two up to date after any write that may move it: a change of
 *   unreleased_answers, or an answer written or withdrawn by someone with an unreleased change. It recomputes rather
 *   than adds, so the order in which the answer's triggers fire does not matter.
 *
 * Each question's released private answers come in batches of k (its first batch is its first k), so no tag shows
 * 1 to k-1 of them and the tag-wide threshold of 041 is gone with its private counts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP TRIGGER questions_private_tag_votes_gone ON questions;
DROP FUNCTION forget_question_private_tag_votes();
DROP TRIGGER questions_topic_private_tag_votes ON questions;
DROP FUNCTION follow_topic_private_votes();
DROP TRIGGER question_tags_private_tag_votes ON question_tags;
DROP FUNCTION follow_question_tag_private_votes();
DROP TRIGGER question_votes_private_tag_votes_delete ON question_votes;
DROP TRIGGER question_votes_private_tag_votes_update ON question_votes;
DROP TRIGGER question_votes_private_tag_votes_insert ON question_votes;
DROP FUNCTION follow_private_tag_votes();
DROP FUNCTION private_answer_count(integer);
DROP FUNCTION move_private_tag_votes(integer, integer);
DROP TRIGGER disclosure_settings_tag_votes ON disclosure_settings;
DROP FUNCTION republish_tag_votes();
DROP TRIGGER tags_published_votes ON tags;
DROP FUNCTION publish_tag_votes();
DROP FUNCTION published_tag_votes(integer, integer);

ALTER TABLE tags DROP COLUMN private_votes_count, ADD COLUMN unreleased_votes_count integer NOT NULL DEFAULT 0;
ALTER TABLE questions ADD COLUMN unreleased_votes_count integer NOT NULL DEFAULT 0;

CREATE FUNCTION unreleased_vote_count(p_question integer) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT (count(*) FILTER (WHERE EXISTS (SELECT 1 FROM question_votes v WHERE v.question_id = r.question_id AND v.user_id = r.user_id))
    - count(*) FILTER (WHERE r.released_answer AND r.released_choice IS NULL))::integer
  FROM unreleased_answers r WHERE r.question_id = p_question
$$;

CREATE FUNCTION publish_tag_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.published_votes_count := NEW.votes_count - NEW.unreleased_votes_count;
  RETURN NEW;
END $$;
CREATE TRIGGER tags_published_votes BEFORE INSERT OR UPDATE OF votes_count, unreleased_votes_count ON tags
  FOR EACH ROW EXECUTE FUNCTION publish_tag_votes();

-- The tags a question's likert answers count in: those it carries, and its topic.
CREATE FUNCTION question_tag_ids(p_question integer) RETURNS SETOF integer LANGUAGE sql STABLE AS $$
  SELECT tag_id FROM question_tags WHERE question_id = p_question
  UNION SELECT topic_id FROM questions WHERE id = p_question AND topic_id IS NOT NULL
$$;

-- Adds p_delta to unreleased_votes_count of every tag the question counts in, locking them in id order.
CREATE FUNCTION move_unreleased_tag_votes(p_question integer, p_delta integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_delta = 0 THEN RETURN; END IF;
  UPDATE tags SET unreleased_votes_count = unreleased_votes_count + p_delta WHERE id IN (
    SELECT id FROM tags WHERE id IN (SELECT question_tag_ids(p_question)) ORDER BY id FOR NO KEY UPDATE);
END $$;

CREATE FUNCTION settle_unreleased_votes(p_question integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  settled integer;
  now_count integer := unreleased_vote_count(p_question);
BEGIN
  SELECT unreleased_votes_count INTO settled FROM questions WHERE id = p_question;
  IF NOT FOUND OR settled = now_count THEN RETURN; END IF;
  UPDATE questions SET unreleased_votes_count = now_count WHERE id = p_question;
  PERFORM move_unreleased_tag_votes(p_question, now_count - settled);
END $$;

CREATE FUNCTION follow_unreleased_tag_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM settle_unreleased_votes(CASE WHEN TG_OP = 'DELETE' THEN OLD.question_id ELSE NEW.question_id END);
  RETURN NULL;
END $$;
CREATE TRIGGER unreleased_answers_tag_votes AFTER INSERT OR DELETE OR UPDATE ON unreleased_answers
  FOR EACH ROW EXECUTE FUNCTION follow_unreleased_tag_votes();

-- A public answer given or withdrawn by someone whose change waits moves what the question holds beyond its release.
CREATE FUNCTION follow_answer_unreleased_tag_votes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  q integer := CASE WHEN TG_OP = 'DELETE' THEN OLD.question_id ELSE NEW.question_id END;
  u integer := CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END;
BEGIN
  IF EXISTS (SELECT 1 FROM unreleased_answers WHERE question_id = q AND user_id = u) THEN
    PERFORM settle_unreleased_votes(q);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER question_votes_unreleased_tag_votes AFTER INSERT OR DELETE ON question_votes
  FOR EACH ROW EXECUTE FUNCTION follow_answer_unreleased_tag_votes();

-- A question starting or ending to carry a tag (unless it carries it as its topic too) brings or takes its count.
CREATE FUNCTION follow_question_tag_unreleased_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND NOT EXISTS (SELECT FROM questions WHERE id = OLD.question_id AND topic_id = OLD.tag_id) THEN
    UPDATE tags SET unreleased_votes_count = tags.unreleased_votes_count - q.unreleased_votes_count
    FROM questions q WHERE tags.id = OLD.tag_id AND q.id = OLD.question_id AND q.unreleased_votes_count <> 0;
  END IF;
  IF TG_OP <> 'DELETE' AND NOT EXISTS (SELECT FROM questions WHERE id = NEW.question_id AND topic_id = NEW.tag_id) THEN
    UPDATE tags SET unreleased_votes_count = tags.unreleased_votes_count + q.unreleased_votes_count
    FROM questions q WHERE tags.id = NEW.tag_id AND q.id = NEW.question_id AND q.unreleased_votes_count <> 0;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER question_tags_unreleased_tag_votes AFTER INSERT OR DELETE OR UPDATE OF question_id, tag_id ON question_tags
  FOR EACH ROW EXECUTE FUNCTION follow_question_tag_unreleased_votes();

CREATE FUNCTION follow_topic_unreleased_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.unreleased_votes_count = 0 THEN RETURN NULL; END IF;
  UPDATE tags SET unreleased_votes_count = unreleased_votes_count
    + CASE WHEN id = NEW.topic_id THEN NEW.unreleased_votes_count ELSE -NEW.unreleased_votes_count END
  WHERE id IN (
    SELECT id FROM tags WHERE id IN (OLD.topic_id, NEW.topic_id)
      AND NOT EXISTS (SELECT FROM question_tags qt WHERE qt.question_id = NEW.id AND qt.tag_id = tags.id)
    ORDER BY id FOR NO KEY UPDATE);
  RETURN NULL;
END $$;
CREATE TRIGGER questions_topic_unreleased_tag_votes AFTER UPDATE OF topic_id ON questions
  FOR EACH ROW WHEN (OLD.topic_id IS DISTINCT FROM NEW.topic_id) EXECUTE FUNCTION follow_topic_unreleased_votes();

-- A deleted question takes its count off its tags before its rows go (their triggers then find no question).
CREATE FUNCTION forget_question_unreleased_tag_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM move_unreleased_tag_votes(OLD.id, -OLD.unreleased_votes_count);
  RETURN OLD;
END $$;
CREATE TRIGGER questions_unreleased_tag_votes_gone BEFORE DELETE ON questions
  FOR EACH ROW EXECUTE FUNCTION forget_question_unreleased_tag_votes();

UPDATE questions SET unreleased_votes_count = unreleased_vote_count(id)
WHERE id IN (SELECT question_id FROM unreleased_answers);
UPDATE tags t SET unreleased_votes_count = coalesce(c.n, 0)
FROM (
  SELECT carrying.tag_id, sum(q.unreleased_votes_count)::integer AS n
  FROM (SELECT tag_id, question_id FROM question_tags UNION SELECT topic_id, id FROM questions WHERE topic_id IS NOT NULL) carrying
  JOIN questions q ON q.id = carrying.question_id
  GROUP BY carrying.tag_id) c
WHERE t.id = c.tag_id;
UPDATE tags SET published_votes_count = votes_count - unreleased_votes_count;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP TRIGGER questions_unreleased_tag_votes_gone ON questions;
DROP FUNCTION forget_question_unreleased_tag_votes();
DROP TRIGGER questions_topic_unreleased_tag_votes ON questions;
DROP FUNCTION follow_topic_unreleased_votes();
DROP TRIGGER question_tags_unreleased_tag_votes ON question_tags;
DROP FUNCTION follow_question_tag_unreleased_votes();
DROP TRIGGER question_votes_unreleased_tag_votes ON question_votes;
DROP FUNCTION follow_answer_unreleased_tag_votes();
DROP TRIGGER unreleased_answers_tag_votes ON unreleased_answers;
DROP FUNCTION follow_unreleased_tag_votes();
DROP FUNCTION settle_unreleased_votes(integer);
DROP FUNCTION move_unreleased_tag_votes(integer, integer);
DROP FUNCTION question_tag_ids(integer);
DROP TRIGGER tags_published_votes ON tags;
DROP FUNCTION publish_tag_votes();
DROP FUNCTION unreleased_vote_count(integer);
ALTER TABLE questions DROP COLUMN unreleased_votes_count;
ALTER TABLE tags DROP COLUMN unreleased_votes_count, ADD COLUMN private_votes_count integer NOT NULL DEFAULT 0;
${PRIVATE_TAG_VOTES_SQL}
${PRIVATE_TAG_VOTES_FILL_SQL}`,
  )
}
