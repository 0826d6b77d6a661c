import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'
import { noticeTriggerSql } from '../data-changes.ts'

/**
 * Private answers reach a question's published figures in batches of k (MIN_CELL_SIZE), never one by one
 * (docs/privacy.md, "Batches"). The stored counts follow every answer at once, as before; what the figures leave out
 * of them is kept here, per person, until k people have changed a private answer of the question since its last
 * release, and the k changes are then released together. So no change of a published figure can be tied to one
 * person's private answer, or to its moment.
 *
 * unreleased_answers: one row per person with an unreleased change on a question, made at their first such change
 * (by trigger, whatever path wrote the answer) and holding what the published figures still count of them: nothing,
 * or the private answer they had (its choice and level). A change that brings them back to it removes the row, and
 * so does going public from nothing private (a public answer shows at once). The k-th row releases the question:
 * its rows go. k lives in disclosure_settings, set from the configuration by each process at start
 * (set_min_cell_size); lowering it releases the questions it reaches.
 *
 * published_corrections: what to add to a question's stored counts to get its published ones, level by level: each
 * unreleased person's answer as stored now taken off, and what was released of them put back. In the liquid family
 * a missing answer is its author's block (themselves and the unanswered people whose chains pass through them),
 * which counts where their chain reaches: in the stored counts along the chain as it is now, in the published ones
 * along the chain as it was released (published_holder: past people whose released state is no answer, stopping at
 * those whose released state is a private answer, which carries nobody's vote).
 *
 * withheld_answers / withheld_answer_count (migration 022) become the same corrections, with the sign of what is
 * left out, so that orderings and answer counts agree with the figures shown.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE TABLE disclosure_settings (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  min_cell_size integer NOT NULL CHECK (min_cell_size >= 1)
);
INSERT INTO disclosure_settings (id, min_cell_size) VALUES (true, 5);
${noticeTriggerSql('disclosure_settings')};

CREATE TABLE unreleased_answers (
  question_id integer NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  released_answer boolean NOT NULL,
  released_choice integer,
  released_value smallint,
  released_skipped boolean,
  released_created_at timestamptz,
  released_modified_at timestamptz,
  since timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (question_id, user_id)
);
${noticeTriggerSql('unreleased_answers')};

-- Before batches, a question's private answers counted from its k-th: those of questions with fewer are unreleased.
INSERT INTO unreleased_answers (question_id, user_id, released_answer)
SELECT a.question_id, a.user_id, false FROM (
  SELECT question_id, user_id FROM question_votes WHERE private
  UNION ALL
  SELECT question_id, user_id FROM question_choice_votes WHERE private
) AS a
WHERE a.question_id IN (
  SELECT question_id FROM (
    SELECT question_id FROM question_votes WHERE private UNION ALL SELECT question_id FROM question_choice_votes WHERE private
  ) AS p GROUP BY question_id HAVING count(*) < 5
);

CREATE FUNCTION set_min_cell_size(p_k integer) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  INSERT INTO disclosure_settings (id, min_cell_size) VALUES (true, p_k)
  ON CONFLICT (id) DO UPDATE SET min_cell_size = p_k WHERE disclosure_settings.min_cell_size <> p_k;
  IF FOUND THEN
    DELETE FROM unreleased_answers u
    WHERE u.question_id IN (SELECT question_id FROM unreleased_answers GROUP BY question_id HAVING count(*) >= p_k);
  END IF;
END $$;

-- After a write that changes a private answer's level, choice or privacy. Answers to one question are written one
-- after another (each write locks the question first), so the count below is exact.
CREATE FUNCTION follow_unreleased_answer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  q integer := CASE WHEN TG_OP = 'DELETE' THEN OLD.question_id ELSE NEW.question_id END;
  u integer := CASE WHEN TG_OP = 'DELETE' THEN OLD.user_id ELSE NEW.user_id END;
  before jsonb := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END;
  after jsonb := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END;
  entry unreleased_answers%ROWTYPE;
  k integer;
BEGIN
  IF before IS NOT NULL AND after IS NOT NULL
     AND before->'private' = after->'private' AND before->'value' = after->'value'
     AND before->'skipped' = after->'skipped' AND before->'choice_id' IS NOT DISTINCT FROM after->'choice_id' THEN
    RETURN NULL;
  END IF;
  SELECT * INTO entry FROM unreleased_answers WHERE question_id = q AND user_id = u FOR UPDATE;
  IF NOT FOUND THEN
    -- What the figures count of them is what was there before this change: a private answer, or nothing private.
    INSERT INTO unreleased_answers (question_id, user_id, released_answer, released_choice, released_value, released_skipped,
      released_created_at, released_modified_at)
    SELECT q, u, true, (before->>'choice_id')::integer, (before->>'value')::smallint, (before->>'skipped')::boolean,
      (before->>'created_at')::timestamptz, (before->>'modified_at')::timestamptz
    WHERE coalesce((before->>'private')::boolean, false)
    UNION ALL
    SELECT q, u, false, NULL, NULL, NULL, NULL, NULL WHERE NOT coalesce((before->>'private')::boolean, false)
    RETURNING * INTO entry;
  END IF;
  IF (NOT entry.released_answer AND (after IS NULL OR NOT (after->>'private')::boolean))
     OR (entry.released_answer AND after IS NOT NULL AND (after->>'private')::boolean
         AND (after->>'choice_id')::integer IS NOT DISTINCT FROM entry.released_choice
         AND (after->>'value')::smallint IS NOT DISTINCT FROM entry.released_value) THEN
    DELETE FROM unreleased_answers WHERE question_id = q AND user_id = u;
    RETURN NULL;
  END IF;
  SELECT min_cell_size INTO k FROM disclosure_settings;
  IF (SELECT count(*) FROM (SELECT 1 FROM unreleased_answers WHERE question_id = q LIMIT k) AS c) >= k THEN
    DELETE FROM unreleased_answers WHERE question_id = q;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER question_votes_unreleased_insert AFTER INSERT ON question_votes
  FOR EACH ROW WHEN (NEW.private) EXECUTE FUNCTION follow_unreleased_answer();
CREATE TRIGGER question_votes_unreleased_update AFTER UPDATE ON question_votes
  FOR EACH ROW WHEN (OLD.private OR NEW.private) EXECUTE FUNCTION follow_unreleased_answer();
CREATE TRIGGER question_votes_unreleased_delete AFTER DELETE ON question_votes
  FOR EACH ROW WHEN (OLD.private) EXECUTE FUNCTION follow_unreleased_answer();
CREATE TRIGGER question_choice_votes_unreleased_insert AFTER INSERT ON question_choice_votes
  FOR EACH ROW WHEN (NEW.private) EXECUTE FUNCTION follow_unreleased_answer();
CREATE TRIGGER question_choice_votes_unreleased_update AFTER UPDATE ON question_choice_votes
  FOR EACH ROW WHEN (OLD.private OR NEW.private) EXECUTE FUNCTION follow_unreleased_answer();
CREATE TRIGGER question_choice_votes_unreleased_delete AFTER DELETE ON question_choice_votes
  FOR EACH ROW WHEN (OLD.private) EXECUTE FUNCTION follow_unreleased_answer();

-- The answers as the published figures count them: every current answer but those of people with an unreleased
-- change, whose released private answer stands in (an id of its own, negative, as it has no row).
CREATE VIEW released_question_votes AS
  SELECT v.id, v.question_id, v.user_id, v.value, v.skipped, v.private, v.created_at, v.modified_at
  FROM question_votes v
  WHERE NOT EXISTS (SELECT 1 FROM unreleased_answers r WHERE r.question_id = v.question_id AND r.user_id = v.user_id)
  UNION ALL
  SELECT -r.user_id, r.question_id, r.user_id, r.released_value, r.released_skipped, true, r.released_created_at, r.released_modified_at
  FROM unreleased_answers r WHERE r.released_answer AND r.released_choice IS NULL;

CREATE VIEW released_choice_votes AS
  SELECT v.id, v.question_id, v.choice_id, v.user_id, v.value, v.skipped, v.private, v.created_at, v.modified_at
  FROM question_choice_votes v
  WHERE NOT EXISTS (SELECT 1 FROM unreleased_answers r WHERE r.question_id = v.question_id AND r.user_id = v.user_id)
  UNION ALL
  SELECT -r.user_id, r.question_id, r.released_choice, r.user_id, r.released_value, r.released_skipped, true,
    r.released_created_at, r.released_modified_at
  FROM unreleased_answers r WHERE r.released_answer AND r.released_choice IS NOT NULL;

-- A user's current answer to the question, of either kind.
CREATE FUNCTION current_answer(p_question integer, p_user integer)
RETURNS TABLE (choice_id integer, value smallint, private boolean, liquid_weight integer)
LANGUAGE sql STABLE AS $$
  SELECT NULL::integer, v.value, v.private, v.liquid_weight FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user
  UNION ALL
  SELECT v.choice_id, v.value, v.private, v.liquid_weight FROM question_choice_votes v
  WHERE v.question_id = p_question AND v.user_id = p_user
$$;

-- The answer p_user's chain reaches as released: past p_past (no released answer), ending at p_stop (a released
-- private answer, which carries nobody's vote); anyone else as they are now.
CREATE FUNCTION published_holder(p_question integer, p_user integer, p_past integer[], p_stop integer[]) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  visited integer[] := ARRAY[p_user];
  current integer := liquid_parent(p_question, p_user);
  carries boolean;
BEGIN
  LOOP
    IF current IS NULL OR current = ANY(visited) OR current = ANY(p_stop) THEN RETURN NULL; END IF;
    IF NOT current = ANY(p_past) THEN
      carries := liquid_answer_carries(p_question, current);
      IF carries IS NOT NULL THEN RETURN CASE WHEN carries THEN current END; END IF;
    END IF;
    visited := visited || current;
    current := liquid_parent(p_question, current);
  END LOOP;
END $$;

CREATE FUNCTION published_corrections(p_question integer)
RETURNS TABLE (choice_id integer, value smallint, direct integer, liquid integer)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  past integer[];
  stop integer[];
  absent integer[];
  e record;
  a record;
  chain integer[];
  w integer;
  holder integer;
  block integer;
BEGIN
  SELECT coalesce(array_agg(r.user_id) FILTER (WHERE NOT r.released_answer), '{}'),
         coalesce(array_agg(r.user_id) FILTER (WHERE r.released_answer), '{}')
    INTO past, stop FROM unreleased_answers r WHERE r.question_id = p_question;
  IF cardinality(past) + cardinality(stop) = 0 THEN RETURN; END IF;
  SELECT coalesce(array_agg(r.user_id), '{}') INTO absent FROM unreleased_answers r
  WHERE r.question_id = p_question AND NOT EXISTS (SELECT 1 FROM current_answer(p_question, r.user_id));

  FOR e IN SELECT * FROM unreleased_answers r WHERE r.question_id = p_question ORDER BY r.user_id LOOP
    SELECT * INTO a FROM current_answer(p_question, e.user_id);
    IF FOUND THEN
      RETURN QUERY SELECT a.choice_id, a.value, -1, -a.liquid_weight;
    ELSE
      -- Stored: their block counts where their chain reaches now. Inside another absent person's block it is theirs;
      -- at an answer whose own block is put back as released, it is taken off where that one is put back.
      block := 1 + liquid_intree(p_question, e.user_id);
      SELECT c.path INTO chain FROM liquid_chain(p_question, e.user_id) AS c;
      w := chain[cardinality(chain)];
      holder := NULL;
      IF w IS NOT NULL AND NOT chain && absent THEN
        IF w = ANY(past) THEN
          holder := published_holder(p_question, w, past, stop);
        ELSIF NOT w = ANY(stop) AND liquid_answer_carries(p_question, w) THEN
          holder := w;
        END IF;
      END IF;
      IF holder IS NOT NULL THEN
        RETURN QUERY SELECT h.choice_id, h.value, 0, -block FROM current_answer(p_question, holder) AS h;
      END IF;
    END IF;
    IF e.released_answer THEN
      RETURN QUERY SELECT e.released_choice, e.released_value, 1, 1;
    ELSE
      holder := published_holder(p_question, e.user_id, past, stop);
      IF holder IS NOT NULL THEN
        RETURN QUERY SELECT h.choice_id, h.value, 0, 1 + liquid_intree(p_question, e.user_id) FROM current_answer(p_question, holder) AS h;
      END IF;
    END IF;
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION withheld_answers(p_question integer, p_k integer, p_choice integer)
RETURNS TABLE (d1 integer, d2 integer, d3 integer, d4 integer, d5 integer, ds integer,
  l1 integer, l2 integer, l3 integer, l4 integer, l5 integer, ls integer)
LANGUAGE sql STABLE PARALLEL UNSAFE AS $$
  SELECT -coalesce(sum(direct) FILTER (WHERE value = 1), 0)::integer, -coalesce(sum(direct) FILTER (WHERE value = 2), 0)::integer,
    -coalesce(sum(direct) FILTER (WHERE value = 3), 0)::integer, -coalesce(sum(direct) FILTER (WHERE value = 4), 0)::integer,
    -coalesce(sum(direct) FILTER (WHERE value = 5), 0)::integer, -coalesce(sum(direct) FILTER (WHERE value IS NULL), 0)::integer,
    -coalesce(sum(liquid) FILTER (WHERE value = 1), 0)::integer, -coalesce(sum(liquid) FILTER (WHERE value = 2), 0)::integer,
    -coalesce(sum(liquid) FILTER (WHERE value = 3), 0)::integer, -coalesce(sum(liquid) FILTER (WHERE value = 4), 0)::integer,
    -coalesce(sum(liquid) FILTER (WHERE value = 5), 0)::integer, -coalesce(sum(liquid) FILTER (WHERE value IS NULL), 0)::integer
  FROM published_corrections(p_question) WHERE choice_id IS NOT DISTINCT FROM p_choice
$$;

CREATE OR REPLACE FUNCTION withheld_answer_count(p_question integer, p_k integer) RETURNS integer
LANGUAGE sql STABLE PARALLEL UNSAFE AS $$
  SELECT -coalesce(sum(direct), 0)::integer FROM published_corrections(p_question)
$$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION withheld_answer_count(p_question integer, p_k integer) RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN count(*) < p_k THEN count(*)::integer ELSE 0 END FROM (
    (SELECT 1 FROM question_votes WHERE question_id = p_question AND private)
    UNION ALL
    (SELECT 1 FROM question_choice_votes WHERE question_id = p_question AND private)
    LIMIT p_k) AS held
$$;
CREATE OR REPLACE FUNCTION withheld_answers(p_question integer, p_k integer, p_choice integer)
RETURNS TABLE (d1 integer, d2 integer, d3 integer, d4 integer, d5 integer, ds integer,
  l1 integer, l2 integer, l3 integer, l4 integer, l5 integer, ls integer)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH held AS (
    (SELECT NULL::integer AS choice_id, value, liquid_weight FROM question_votes WHERE question_id = p_question AND private)
    UNION ALL
    (SELECT choice_id, value, liquid_weight FROM question_choice_votes WHERE question_id = p_question AND private)
    LIMIT p_k
  ), withheld AS (
    SELECT value, liquid_weight FROM held
    WHERE choice_id IS NOT DISTINCT FROM p_choice AND (SELECT count(*) FROM held) < p_k
  )
  SELECT count(*) FILTER (WHERE value = 1)::integer, count(*) FILTER (WHERE value = 2)::integer,
    count(*) FILTER (WHERE value = 3)::integer, count(*) FILTER (WHERE value = 4)::integer,
    count(*) FILTER (WHERE value = 5)::integer, count(*) FILTER (WHERE value IS NULL)::integer,
    coalesce(sum(liquid_weight) FILTER (WHERE value = 1), 0)::integer, coalesce(sum(liquid_weight) FILTER (WHERE value = 2), 0)::integer,
    coalesce(sum(liquid_weight) FILTER (WHERE value = 3), 0)::integer, coalesce(sum(liquid_weight) FILTER (WHERE value = 4), 0)::integer,
    coalesce(sum(liquid_weight) FILTER (WHERE value = 5), 0)::integer, coalesce(sum(liquid_weight) FILTER (WHERE value IS NULL), 0)::integer
  FROM withheld
$$;
DROP FUNCTION published_corrections(integer);
DROP FUNCTION published_holder(integer, integer, integer[], integer[]);
DROP FUNCTION current_answer(integer, integer);
DROP VIEW released_choice_votes;
DROP VIEW released_question_votes;
DROP TRIGGER question_choice_votes_unreleased_delete ON question_choice_votes;
DROP TRIGGER question_choice_votes_unreleased_update ON question_choice_votes;
DROP TRIGGER question_choice_votes_unreleased_insert ON question_choice_votes;
DROP TRIGGER question_votes_unreleased_delete ON question_votes;
DROP TRIGGER question_votes_unreleased_update ON question_votes;
DROP TRIGGER question_votes_unreleased_insert ON question_votes;
DROP FUNCTION follow_unreleased_answer();
DROP FUNCTION set_min_cell_size(integer);
DROP TABLE unreleased_answers;
DROP TABLE disclosure_settings;
`,
  )
}
