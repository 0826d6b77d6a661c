import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * The fold finds the questions and tags with deltas one index descent each (a loose index scan) instead of scanning
 * the delta tables: they take thousands of rows a second under a surge and delete them again, so until vacuum comes
 * (a minute at most) every scan read every row deleted since, and the fold's three scans took 1 to 2 ms each (demo
 * seed, after eight seconds of a survey surge). Deltas of deleted questions and tags are removed by one probe per id
 * found; a deleted choice's are folded away with its question's. The same signature and effect as migration 046's
 * (expand only).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION fold_figure_deltas(p_wait boolean DEFAULT false, p_questions integer[] DEFAULT NULL::integer[])
 RETURNS integer
 LANGUAGE plpgsql
 SET jit TO 'off'
AS $$
DECLARE
  qs integer[];
  dq integer[];
  dt integer[];
  ts integer[];
  folded integer := 0;
  moved integer;
  announcing text := current_setting('civic.notices_after_commit', true);
BEGIN
  IF p_questions IS NOT NULL THEN
    SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id = ANY(p_questions)
      AND id IN (SELECT question_id FROM question_figure_deltas) ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSIF p_wait THEN
    PERFORM pg_advisory_xact_lock(4703, 0);
  ELSIF NOT pg_try_advisory_xact_lock(4703, 0) THEN
    RETURN 0;
  END IF;
  -- What readers are served does not change, so the fold announces nothing (and the caller's setting comes back).
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  IF p_questions IS NOT NULL THEN
    NULL;
  ELSE
    -- The questions with deltas, one index descent each: a scan of the table would read every row deleted since
    -- its last vacuum, thousands a second under a surge.
    WITH RECURSIVE d(id) AS (
      SELECT min(question_id) FROM question_figure_deltas
      UNION ALL
      SELECT (SELECT min(question_id) FROM question_figure_deltas WHERE question_id > d.id) FROM d WHERE d.id IS NOT NULL)
    SELECT coalesce(array_agg(id), '{}') INTO dq FROM d WHERE id IS NOT NULL;
    IF p_wait THEN
      SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id = ANY(dq) ORDER BY id FOR NO KEY UPDATE) AS l;
    ELSE
      SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id = ANY(dq) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
    END IF;
  END IF;
  IF qs IS NOT NULL THEN
    WITH gone AS (DELETE FROM question_figure_deltas WHERE question_id = ANY(qs) RETURNING *),
    sums AS (SELECT question_id, choice_id, count(*) AS n, sum(direct_minimum) AS direct_minimum, sum(direct_low) AS direct_low, sum(direct_medium) AS direct_medium, sum(direct_high) AS direct_high, sum(direct_maximum) AS direct_maximum, sum(direct_skipped) AS direct_skipped, sum(liquid_minimum) AS liquid_minimum, sum(liquid_low) AS liquid_low, sum(liquid_medium) AS liquid_medium, sum(liquid_high) AS liquid_high, sum(liquid_maximum) AS liquid_maximum, sum(liquid_skipped) AS liquid_skipped FROM gone GROUP BY question_id, choice_id),
    on_questions AS (UPDATE questions AS q SET direct_minimum = q.direct_minimum + s.direct_minimum, direct_low = q.direct_low + s.direct_low, direct_medium = q.direct_medium + s.direct_medium, direct_high = q.direct_high + s.direct_high, direct_maximum = q.direct_maximum + s.direct_maximum, direct_skipped = q.direct_skipped + s.direct_skipped, liquid_minimum = q.liquid_minimum + s.liquid_minimum, liquid_low = q.liquid_low + s.liquid_low, liquid_medium = q.liquid_medium + s.liquid_medium, liquid_high = q.liquid_high + s.liquid_high, liquid_maximum = q.liquid_maximum + s.liquid_maximum, liquid_skipped = q.liquid_skipped + s.liquid_skipped
      FROM sums s WHERE s.choice_id IS NULL AND q.id = s.question_id),
    on_choices AS (UPDATE question_choices AS q SET direct_minimum = q.direct_minimum + s.direct_minimum, direct_low = q.direct_low + s.direct_low, direct_medium = q.direct_medium + s.direct_medium, direct_high = q.direct_high + s.direct_high, direct_maximum = q.direct_maximum + s.direct_maximum, direct_skipped = q.direct_skipped + s.direct_skipped, liquid_minimum = q.liquid_minimum + s.liquid_minimum, liquid_low = q.liquid_low + s.liquid_low, liquid_medium = q.liquid_medium + s.liquid_medium, liquid_high = q.liquid_high + s.liquid_high, liquid_maximum = q.liquid_maximum + s.liquid_maximum, liquid_skipped = q.liquid_skipped + s.liquid_skipped
      FROM sums s WHERE q.id = s.choice_id)
    SELECT coalesce(sum(n), 0) INTO moved FROM sums;
    folded := folded + moved;
  END IF;
  IF p_questions IS NOT NULL THEN
    PERFORM set_config('civic.notices_after_commit', coalesce(announcing, ''), true);
    RETURN folded;
  END IF;
  WITH RECURSIVE d(id) AS (
    SELECT min(tag_id) FROM tag_vote_deltas
    UNION ALL
    SELECT (SELECT min(tag_id) FROM tag_vote_deltas WHERE tag_id > d.id) FROM d WHERE d.id IS NOT NULL)
  SELECT coalesce(array_agg(id), '{}') INTO dt FROM d WHERE id IS NOT NULL;
  IF p_wait THEN
    SELECT array_agg(id) INTO ts FROM (SELECT id FROM tags WHERE id = ANY(dt) ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSE
    SELECT array_agg(id) INTO ts FROM (SELECT id FROM tags WHERE id = ANY(dt) ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
  END IF;
  IF ts IS NOT NULL THEN
    WITH gone AS (DELETE FROM tag_vote_deltas WHERE tag_id = ANY(ts) RETURNING tag_id, delta),
    sums AS (SELECT tag_id, count(*) AS n, sum(delta) AS delta FROM gone GROUP BY tag_id),
    on_tags AS (UPDATE tags AS t SET votes_count = t.votes_count + s.delta FROM sums s WHERE t.id = s.tag_id)
    SELECT coalesce(sum(n), 0) INTO moved FROM sums;
    folded := folded + moved;
  END IF;
  -- Deltas of questions and tags deleted since (a choice's go with its question's fold above): a probe per id found.
  DELETE FROM question_figure_deltas d WHERE d.question_id = ANY(dq) AND NOT EXISTS (SELECT FROM questions q WHERE q.id = d.question_id);
  DELETE FROM tag_vote_deltas d WHERE d.tag_id = ANY(dt) AND NOT EXISTS (SELECT FROM tags t WHERE t.id = d.tag_id);
  PERFORM set_config('civic.notices_after_commit', coalesce(announcing, ''), true);
  RETURN folded;
END $$;
`,
  )
}

/** Migration 046's body back. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION fold_figure_deltas(p_wait boolean DEFAULT false, p_questions integer[] DEFAULT NULL::integer[])
 RETURNS integer
 LANGUAGE plpgsql
 SET jit TO 'off'
AS $$
DECLARE
  qs integer[];
  ts integer[];
  folded integer := 0;
  moved integer;
  announcing text := current_setting('civic.notices_after_commit', true);
BEGIN
  IF p_questions IS NOT NULL THEN
    SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id = ANY(p_questions)
      AND id IN (SELECT question_id FROM question_figure_deltas) ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSIF p_wait THEN
    PERFORM pg_advisory_xact_lock(4703, 0);
  ELSIF NOT pg_try_advisory_xact_lock(4703, 0) THEN
    RETURN 0;
  END IF;
  -- What readers are served does not change, so the fold announces nothing (and the caller's setting comes back).
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  IF p_questions IS NOT NULL THEN
    NULL;
  ELSIF p_wait THEN
    SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id IN (SELECT question_id FROM question_figure_deltas)
      ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSE
    SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id IN (SELECT question_id FROM question_figure_deltas)
      ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
  END IF;
  IF qs IS NOT NULL THEN
    WITH gone AS (DELETE FROM question_figure_deltas WHERE question_id = ANY(qs) RETURNING *),
    sums AS (SELECT question_id, choice_id, count(*) AS n, sum(direct_minimum) AS direct_minimum, sum(direct_low) AS direct_low, sum(direct_medium) AS direct_medium, sum(direct_high) AS direct_high, sum(direct_maximum) AS direct_maximum, sum(direct_skipped) AS direct_skipped, sum(liquid_minimum) AS liquid_minimum, sum(liquid_low) AS liquid_low, sum(liquid_medium) AS liquid_medium, sum(liquid_high) AS liquid_high, sum(liquid_maximum) AS liquid_maximum, sum(liquid_skipped) AS liquid_skipped FROM gone GROUP BY question_id, choice_id),
    on_questions AS (UPDATE questions AS q SET direct_minimum = q.direct_minimum + s.direct_minimum, direct_low = q.direct_low + s.direct_low, direct_medium = q.direct_medium + s.direct_medium, direct_high = q.direct_high + s.direct_high, direct_maximum = q.direct_maximum + s.direct_maximum, direct_skipped = q.direct_skipped + s.direct_skipped, liquid_minimum = q.liquid_minimum + s.liquid_minimum, liquid_low = q.liquid_low + s.liquid_low, liquid_medium = q.liquid_medium + s.liquid_medium, liquid_high = q.liquid_high + s.liquid_high, liquid_maximum = q.liquid_maximum + s.liquid_maximum, liquid_skipped = q.liquid_skipped + s.liquid_skipped
      FROM sums s WHERE s.choice_id IS NULL AND q.id = s.question_id),
    on_choices AS (UPDATE question_choices AS q SET direct_minimum = q.direct_minimum + s.direct_minimum, direct_low = q.direct_low + s.direct_low, direct_medium = q.direct_medium + s.direct_medium, direct_high = q.direct_high + s.direct_high, direct_maximum = q.direct_maximum + s.direct_maximum, direct_skipped = q.direct_skipped + s.direct_skipped, liquid_minimum = q.liquid_minimum + s.liquid_minimum, liquid_low = q.liquid_low + s.liquid_low, liquid_medium = q.liquid_medium + s.liquid_medium, liquid_high = q.liquid_high + s.liquid_high, liquid_maximum = q.liquid_maximum + s.liquid_maximum, liquid_skipped = q.liquid_skipped + s.liquid_skipped
      FROM sums s WHERE q.id = s.choice_id)
    SELECT coalesce(sum(n), 0) INTO moved FROM sums;
    folded := folded + moved;
  END IF;
  IF p_questions IS NOT NULL THEN
    PERFORM set_config('civic.notices_after_commit', coalesce(announcing, ''), true);
    RETURN folded;
  END IF;
  IF p_wait THEN
    SELECT array_agg(id) INTO ts FROM (SELECT id FROM tags WHERE id IN (SELECT tag_id FROM tag_vote_deltas)
      ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSE
    SELECT array_agg(id) INTO ts FROM (SELECT id FROM tags WHERE id IN (SELECT tag_id FROM tag_vote_deltas)
      ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
  END IF;
  IF ts IS NOT NULL THEN
    WITH gone AS (DELETE FROM tag_vote_deltas WHERE tag_id = ANY(ts) RETURNING tag_id, delta),
    sums AS (SELECT tag_id, count(*) AS n, sum(delta) AS delta FROM gone GROUP BY tag_id),
    on_tags AS (UPDATE tags AS t SET votes_count = t.votes_count + s.delta FROM sums s WHERE t.id = s.tag_id)
    SELECT coalesce(sum(n), 0) INTO moved FROM sums;
    folded := folded + moved;
  END IF;
  -- Deltas of questions, choices and tags deleted since: a probe per distinct id left, not a scan of their tables.
  DELETE FROM question_figure_deltas d
  WHERE d.question_id IN (SELECT g.id FROM (SELECT DISTINCT question_id AS id FROM question_figure_deltas) AS g
                          WHERE NOT EXISTS (SELECT FROM questions q WHERE q.id = g.id))
     OR d.choice_id IN (SELECT g.id FROM (SELECT DISTINCT choice_id AS id FROM question_figure_deltas WHERE choice_id IS NOT NULL) AS g
                        WHERE NOT EXISTS (SELECT FROM question_choices c WHERE c.id = g.id));
  DELETE FROM tag_vote_deltas d
  WHERE d.tag_id IN (SELECT g.id FROM (SELECT DISTINCT tag_id AS id FROM tag_vote_deltas) AS g
                     WHERE NOT EXISTS (SELECT FROM tags t WHERE t.id = g.id));
  PERFORM set_config('civic.notices_after_commit', coalesce(announcing, ''), true);
  RETURN folded;
END $$;
`,
  )
}
