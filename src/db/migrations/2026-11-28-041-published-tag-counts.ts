import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * A tag's votes_count as others may read it (docs/privacy.md, rule 1 of src/disclosure/release.ts for a whole):
 * the likert answers on the questions carrying it (as a tag or as their topic), its private answers counted only
 * once it holds k (MIN_CELL_SIZE, kept in disclosure_settings by migration 038) of them.
 *
 * - tags.votes_count stays the count of every answer, moved by the answering code as before;
 * - tags.private_votes_count: of those, the private ones, kept by the triggers below whatever path writes an
 *   answer, its privacy, a question's tags or topic, or deletes a question;
 * - tags.published_votes_count: what is shown, set from the two by a trigger on every change of either, and again
 *   for every tag when k changes.
 *
 * An answer's trigger locks its author's row before the tags: the lock order of every answering transaction is the
 * question, the user, the tags, and some write the answer before they reach the user row. A question that is
 * deleted takes its private answers off its tags before its rows go (the answers' own triggers then find no
 * question and do nothing).
 */
/** The triggers and functions that keep the counts (043 replaces them; its down puts them back). */
export const PRIVATE_TAG_VOTES_SQL = `
CREATE FUNCTION published_tag_votes(p_votes integer, p_private integer) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT p_votes - CASE WHEN p_private < (SELECT min_cell_size FROM disclosure_settings) THEN p_private ELSE 0 END
$$;

CREATE FUNCTION publish_tag_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.published_votes_count := published_tag_votes(NEW.votes_count, NEW.private_votes_count);
  RETURN NEW;
END $$;
CREATE TRIGGER tags_published_votes BEFORE INSERT OR UPDATE OF votes_count, private_votes_count ON tags
  FOR EACH ROW EXECUTE FUNCTION publish_tag_votes();

CREATE FUNCTION republish_tag_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE tags SET published_votes_count = published_tag_votes(votes_count, private_votes_count)
  WHERE published_votes_count <> published_tag_votes(votes_count, private_votes_count);
  RETURN NULL;
END $$;
CREATE TRIGGER disclosure_settings_tag_votes AFTER UPDATE ON disclosure_settings
  FOR EACH ROW WHEN (OLD.min_cell_size IS DISTINCT FROM NEW.min_cell_size) EXECUTE FUNCTION republish_tag_votes();

-- Adds p_delta private answers to every tag the question carries, locking them in id order.
CREATE FUNCTION move_private_tag_votes(p_question integer, p_delta integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_delta = 0 THEN RETURN; END IF;
  UPDATE tags SET private_votes_count = private_votes_count + p_delta WHERE id IN (
    SELECT id FROM tags WHERE id IN (
      SELECT tag_id FROM question_tags WHERE question_id = p_question
      UNION SELECT topic_id FROM questions WHERE id = p_question AND topic_id IS NOT NULL)
    ORDER BY id FOR NO KEY UPDATE);
END $$;

CREATE FUNCTION private_answer_count(p_question integer) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT count(*)::integer FROM question_votes WHERE question_id = p_question AND private
$$;

CREATE FUNCTION follow_private_tag_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- NO KEY UPDATE, as the answering code locks it: inserting an answer holds a key-share lock on its user.
  PERFORM FROM users WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END FOR NO KEY UPDATE;
  IF TG_OP <> 'INSERT' AND OLD.private AND EXISTS (SELECT FROM questions WHERE id = OLD.question_id) THEN
    PERFORM move_private_tag_votes(OLD.question_id, -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.private AND EXISTS (SELECT FROM questions WHERE id = NEW.question_id) THEN
    PERFORM move_private_tag_votes(NEW.question_id, 1);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER question_votes_private_tag_votes_insert AFTER INSERT ON question_votes
  FOR EACH ROW WHEN (NEW.private) EXECUTE FUNCTION follow_private_tag_votes();
CREATE TRIGGER question_votes_private_tag_votes_update AFTER UPDATE OF private, question_id ON question_votes
  FOR EACH ROW WHEN ((OLD.private OR NEW.private) AND (OLD.private <> NEW.private OR OLD.question_id <> NEW.question_id))
  EXECUTE FUNCTION follow_private_tag_votes();
CREATE TRIGGER question_votes_private_tag_votes_delete AFTER DELETE ON question_votes
  FOR EACH ROW WHEN (OLD.private) EXECUTE FUNCTION follow_private_tag_votes();

-- A question starting or ending to carry a tag (unless it carries it as its topic too) brings or takes its private answers.
CREATE FUNCTION follow_question_tag_private_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND NOT EXISTS (SELECT FROM questions WHERE id = OLD.question_id AND topic_id = OLD.tag_id) THEN
    UPDATE tags SET private_votes_count = private_votes_count - private_answer_count(OLD.question_id)
    WHERE id = OLD.tag_id AND EXISTS (SELECT FROM questions WHERE id = OLD.question_id);
  END IF;
  IF TG_OP <> 'DELETE' AND NOT EXISTS (SELECT FROM questions WHERE id = NEW.question_id AND topic_id = NEW.tag_id) THEN
    UPDATE tags SET private_votes_count = private_votes_count + private_answer_count(NEW.question_id) WHERE id = NEW.tag_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER question_tags_private_tag_votes AFTER INSERT OR DELETE OR UPDATE OF question_id, tag_id ON question_tags
  FOR EACH ROW EXECUTE FUNCTION follow_question_tag_private_votes();

CREATE FUNCTION follow_topic_private_votes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n integer := private_answer_count(NEW.id);
BEGIN
  IF n = 0 THEN RETURN NULL; END IF;
  UPDATE tags SET private_votes_count = private_votes_count + CASE WHEN id = NEW.topic_id THEN n ELSE -n END
  WHERE id IN (
    SELECT id FROM tags WHERE id IN (OLD.topic_id, NEW.topic_id)
      AND NOT EXISTS (SELECT FROM question_tags qt WHERE qt.question_id = NEW.id AND qt.tag_id = tags.id)
    ORDER BY id FOR NO KEY UPDATE);
  RETURN NULL;
END $$;
CREATE TRIGGER questions_topic_private_tag_votes AFTER UPDATE OF topic_id ON questions
  FOR EACH ROW WHEN (OLD.topic_id IS DISTINCT FROM NEW.topic_id) EXECUTE FUNCTION follow_topic_private_votes();

CREATE FUNCTION forget_question_private_tag_votes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM move_private_tag_votes(OLD.id, -private_answer_count(OLD.id));
  RETURN OLD;
END $$;
CREATE TRIGGER questions_private_tag_votes_gone BEFORE DELETE ON questions
  FOR EACH ROW EXECUTE FUNCTION forget_question_private_tag_votes();
`

/** Sets both columns from the answers. */
export const PRIVATE_TAG_VOTES_FILL_SQL = `
UPDATE tags t SET private_votes_count = c.n
FROM (
  SELECT carrying.tag_id, count(*)::integer AS n
  FROM (SELECT tag_id, question_id FROM question_tags UNION SELECT topic_id, id FROM questions WHERE topic_id IS NOT NULL) carrying
  JOIN question_votes v ON v.question_id = carrying.question_id AND v.private
  GROUP BY carrying.tag_id) c
WHERE t.id = c.tag_id;
UPDATE tags SET published_votes_count = published_tag_votes(votes_count, private_votes_count);
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
ALTER TABLE tags
  ADD COLUMN private_votes_count integer NOT NULL DEFAULT 0,
  ADD COLUMN published_votes_count integer NOT NULL DEFAULT 0;
${PRIVATE_TAG_VOTES_SQL}
${PRIVATE_TAG_VOTES_FILL_SQL}`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
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
ALTER TABLE tags DROP COLUMN published_votes_count, DROP COLUMN private_votes_count;
`,
  )
}
