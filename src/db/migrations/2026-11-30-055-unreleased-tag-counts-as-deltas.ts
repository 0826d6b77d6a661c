import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/** A table without a change notice, as the other deltas: the answer that writes one announces itself. */
export const UNRELEASED_DELTA_TABLES_WITHOUT_NOTICE = ['tag_unreleased_deltas'] as const

/** The tags' deltas a reader adds to a tag's published count: its answers' less those still unreleased. */
const PENDING_TAG_VOTES = (unreleased: string) => `
CREATE OR REPLACE VIEW pending_tag_votes AS
 SELECT tag_id, sum(delta)::integer AS delta
   FROM ${unreleased}
  GROUP BY tag_id;`

/** Migration 043's move, in place. */
const MOVE_IN_PLACE = `
CREATE OR REPLACE FUNCTION move_unreleased_tag_votes(p_question integer, p_delta integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_delta = 0 THEN RETURN; END IF;
  UPDATE tags SET unreleased_votes_count = unreleased_votes_count + p_delta WHERE id IN (
    SELECT id FROM tags WHERE id IN (SELECT question_tag_ids(p_question)) ORDER BY id FOR NO KEY UPDATE);
END $$;`

/**
 * A tag's unreleased count (the private answers its published count leaves out, migration 043) no longer queues
 * private answers. Every private answer, and every batch released, updated the rows of its question's tags in place:
 * private answers to any two questions sharing a tag (a topic shares hundreds) waited on each other, and groups of
 * answers locking tags in the order of their answers deadlocked. Their moves are appended now
 * (tag_unreleased_deltas) and folded with the counts: `fold_figure_deltas` folds both (the previous release calls it
 * too), the counts' fold keeping its body as `fold_count_deltas`. Readers add the tail through pending_tag_votes
 * (the published count's deltas: the answers' less the unreleased), so a shown count never moves before a batch is
 * released. A private first answer, one a transaction: 2.6–2.9 → 1.5–2.1 ms (demo seed, 40 questions).
 * With two serving processes, a ten-question surge went from 5–6 deadlocks a run to 1.
 *
 * liquid_representative becomes PL/pgSQL: as a SQL function whose body reads a function it was planned again at every
 * call of liquid_block (0.15 ms), the same walk otherwise.
 *
 * Signatures unchanged, one table and two functions new (expand only).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE TABLE tag_unreleased_deltas (tag_id integer NOT NULL, delta integer NOT NULL);
CREATE INDEX tag_unreleased_deltas_tag ON tag_unreleased_deltas (tag_id);
ALTER TABLE tag_unreleased_deltas SET (vacuum_truncate = false);

CREATE OR REPLACE FUNCTION move_unreleased_tag_votes(p_question integer, p_delta integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF p_delta = 0 THEN RETURN; END IF;
  INSERT INTO tag_unreleased_deltas (tag_id, delta) SELECT t, p_delta FROM question_tag_ids(p_question) AS t;
END $$;
${PENDING_TAG_VOTES(`(SELECT tag_id, delta FROM tag_vote_deltas
         UNION ALL SELECT tag_id, -delta FROM tag_unreleased_deltas) AS d`)}

CREATE FUNCTION fold_tag_unreleased_deltas(p_wait boolean) RETURNS integer
LANGUAGE plpgsql SET jit TO 'off' SET plan_cache_mode TO 'force_generic_plan' AS $$
DECLARE
  dt integer[];
  ts integer[];
  folded integer := 0;
  announcing text := current_setting('civic.notices_after_commit', true);
BEGIN
  WITH RECURSIVE d(id) AS (
    SELECT min(tag_id) FROM tag_unreleased_deltas
    UNION ALL
    SELECT (SELECT min(tag_id) FROM tag_unreleased_deltas WHERE tag_id > d.id) FROM d WHERE d.id IS NOT NULL)
  SELECT coalesce(array_agg(id), '{}') INTO dt FROM d WHERE id IS NOT NULL;
  IF cardinality(dt) = 0 THEN RETURN 0; END IF;
  -- What readers are served does not change, so the fold announces nothing.
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  IF p_wait THEN
    SELECT array_agg(id) INTO ts FROM (SELECT id FROM tags WHERE id = ANY(dt) ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSE
    SELECT array_agg(id) INTO ts FROM (SELECT id FROM tags WHERE id = ANY(dt) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
  END IF;
  IF ts IS NOT NULL THEN
    WITH gone AS (DELETE FROM tag_unreleased_deltas WHERE tag_id = ANY(ts) RETURNING tag_id, delta),
    sums AS (SELECT tag_id, count(*) AS n, sum(delta) AS delta FROM gone GROUP BY tag_id),
    on_tags AS (UPDATE tags AS t SET unreleased_votes_count = t.unreleased_votes_count + s.delta FROM sums s WHERE t.id = s.tag_id)
    SELECT coalesce(sum(n), 0) INTO folded FROM sums;
  END IF;
  -- Deltas of tags deleted since: a probe per id found.
  DELETE FROM tag_unreleased_deltas d WHERE d.tag_id = ANY(dt) AND NOT EXISTS (SELECT FROM tags t WHERE t.id = d.tag_id);
  PERFORM set_config('civic.notices_after_commit', coalesce(announcing, ''), true);
  RETURN folded;
END $$;

ALTER FUNCTION fold_figure_deltas(boolean, integer[]) RENAME TO fold_count_deltas;
CREATE FUNCTION fold_figure_deltas(p_wait boolean DEFAULT false, p_questions integer[] DEFAULT NULL::integer[]) RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
  -- A question's own fold leaves the tags to the next full one, as the counts' does.
  RETURN fold_count_deltas(p_wait, p_questions)
    + CASE WHEN p_questions IS NULL THEN fold_tag_unreleased_deltas(p_wait) ELSE 0 END;
END $$;

CREATE OR REPLACE FUNCTION liquid_representative(p_question integer, p_user integer) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT holder FROM liquid_chain(p_question, p_user));
END $$;
`,
  )
}

/** The unreleased deltas folded in place, then everything as migrations 043, 046 and 049 left it. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
SELECT fold_tag_unreleased_deltas(true);
DROP FUNCTION fold_figure_deltas(boolean, integer[]);
ALTER FUNCTION fold_count_deltas(boolean, integer[]) RENAME TO fold_figure_deltas;
DROP FUNCTION fold_tag_unreleased_deltas(boolean);
${MOVE_IN_PLACE}
${PENDING_TAG_VOTES('tag_vote_deltas')}
DROP TABLE tag_unreleased_deltas;

CREATE OR REPLACE FUNCTION liquid_representative(p_question integer, p_user integer) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT holder FROM liquid_chain(p_question, p_user)
$$;
`,
  )
}
