import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

const COUNTS = 'c1 double precision, c2 double precision, c3 double precision, c4 double precision, c5 double precision'

/**
 * Sort keys equal to the published figures of a question, a choice or a question-tag (docs/statistics.md,
 * Published figures of a question), so that an ordering by a figure tells nothing the figures shown do not.
 *
 * withheld_answers / withheld_tag_votes / withheld_answer_count: what the published figures leave out of the stored counts, per level (d
 * direct, l liquid, s skips): the private answers of the question (those on the choice asked for, or its likert
 * ones for NULL) while it holds fewer than k of them, else nothing; read through the partial indexes on private
 * answers, k rows at most. The likert_* functions are src/modules/statistics/compute/likert.ts over five level
 * counts, step for step, so that equal counts give equal keys.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE INDEX question_tag_votes_private_idx ON question_tag_votes (question_tag_id) INCLUDE (value) WHERE private;

CREATE FUNCTION withheld_answers(p_question integer, p_k integer, p_choice integer)
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

-- How many answers (likert and choice, skips included) the published figures of the question leave out.
CREATE FUNCTION withheld_answer_count(p_question integer, p_k integer) RETURNS integer
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN count(*) < p_k THEN count(*)::integer ELSE 0 END FROM (
    (SELECT 1 FROM question_votes WHERE question_id = p_question AND private)
    UNION ALL
    (SELECT 1 FROM question_choice_votes WHERE question_id = p_question AND private)
    LIMIT p_k) AS held
$$;

CREATE FUNCTION withheld_tag_votes(p_question_tag integer, p_k integer)
RETURNS TABLE (d1 integer, d2 integer, d3 integer, d4 integer, d5 integer, ds integer)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  WITH held AS (SELECT value FROM question_tag_votes WHERE question_tag_id = p_question_tag AND private LIMIT p_k),
  withheld AS (SELECT value FROM held WHERE (SELECT count(*) FROM held) < p_k)
  SELECT count(*) FILTER (WHERE value = 1)::integer, count(*) FILTER (WHERE value = 2)::integer,
    count(*) FILTER (WHERE value = 3)::integer, count(*) FILTER (WHERE value = 4)::integer,
    count(*) FILTER (WHERE value = 5)::integer, 0
  FROM withheld
$$;

CREATE FUNCTION likert_sum(${COUNTS}) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT c1 * 1 + c2 * 2 + c3 * 3 + c4 * 4 + c5 * 5
$$;

-- The only filled level (1..5), or 0 when none or several are.
CREATE FUNCTION likert_unanimous(${COUNTS}) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN (c1 > 0)::int + (c2 > 0)::int + (c3 > 0)::int + (c4 > 0)::int + (c5 > 0)::int <> 1 THEN 0
    WHEN c1 > 0 THEN 1 WHEN c2 > 0 THEN 2 WHEN c3 > 0 THEN 3 WHEN c4 > 0 THEN 4 ELSE 5 END
$$;

CREATE FUNCTION likert_value(${COUNTS}) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n double precision := c1 + c2 + c3 + c4 + c5;
  lone integer := likert_unanimous(c1, c2, c3, c4, c5);
BEGIN
  IF n = 0 THEN RETURN 0; END IF;
  IF lone > 0 THEN RETURN lone; END IF;
  RETURN least(5, greatest(1, likert_sum(c1, c2, c3, c4, c5) / n));
END
$$;

CREATE FUNCTION likert_heat(${COUNTS}) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n double precision := c1 + c2 + c3 + c4 + c5;
  lone integer := likert_unanimous(c1, c2, c3, c4, c5);
  total double precision;
BEGIN
  IF n = 0 THEN RETURN 0; END IF;
  IF lone > 0 THEN RETURN abs(lone - 3) / 2.0; END IF;
  total := 0 + (c1 / n) * 2 + (c2 / n) * 1 + (c3 / n) * 0 + (c4 / n) * 1 + (c5 / n) * 2;
  RETURN least(1, greatest(0, total / 2));
END
$$;

-- Tastle & Wierman (2007).
CREATE FUNCTION likert_consensus(${COUNTS}) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  n double precision := c1 + c2 + c3 + c4 + c5;
  p double precision[];
  mu double precision := 0;
  total double precision := 1;
  i integer;
BEGIN
  IF n = 0 THEN RETURN 0; END IF;
  IF likert_unanimous(c1, c2, c3, c4, c5) > 0 THEN RETURN 1; END IF;
  p := ARRAY[c1 / n, c2 / n, c3 / n, c4 / n, c5 / n];
  FOR i IN 1..5 LOOP mu := mu + p[i] * i; END LOOP;
  mu := least(5, greatest(1, mu));
  FOR i IN 1..5 LOOP
    IF p[i] > 0 THEN
      total := total + p[i] * (ln(greatest(1 - abs(i - mu) / 4, p[i])) / ln(2.0::double precision));
    END IF;
  END LOOP;
  RETURN least(1, greatest(0, total));
END
$$;

-- Van der Eijk (2001): (1 - A) / 2, A the layers' pattern agreements weighted by layer size.
CREATE FUNCTION likert_polarisation(${COUNTS}) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  c double precision[] := ARRAY[c1, c2, c3, c4, c5];
  n double precision := c1 + c2 + c3 + c4 + c5;
  agreement double precision := 0;
  previous double precision := 0;
  threshold double precision;
  filled integer;
  unimodal integer;
  bimodal integer;
  layer double precision;
  a integer;
  b integer;
  z integer;
BEGIN
  IF n = 0 THEN RETURN 0; END IF;
  FOR threshold IN SELECT DISTINCT x FROM unnest(c) AS x WHERE x > 0 ORDER BY x LOOP
    filled := 0;
    FOR a IN 1..5 LOOP IF c[a] >= threshold THEN filled := filled + 1; END IF; END LOOP;
    IF filled <= 1 THEN
      layer := 1;
    ELSE
      unimodal := 0;
      bimodal := 0;
      FOR a IN 1..3 LOOP FOR b IN a + 1 .. 4 LOOP FOR z IN b + 1 .. 5 LOOP
        IF c[a] >= threshold AND c[b] < threshold AND c[z] >= threshold THEN bimodal := bimodal + 1;
        ELSIF (c[a] >= threshold AND c[b] >= threshold AND c[z] < threshold)
          OR (c[a] < threshold AND c[b] >= threshold AND c[z] >= threshold) THEN unimodal := unimodal + 1;
        END IF;
      END LOOP; END LOOP; END LOOP;
      IF unimodal + bimodal = 0 THEN
        layer := 0;
      ELSE
        layer := ((3 * unimodal - 4 * bimodal)::double precision / (3 * (unimodal + bimodal))) * (1 - (filled - 1)::double precision / 4);
      END IF;
    END IF;
    agreement := agreement + (((threshold - previous) * filled) / n) * layer;
    previous := threshold;
  END LOOP;
  agreement := least(1, greatest(-1, agreement));
  RETURN least(1, greatest(0, (1 - agreement) / 2));
END
$$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP FUNCTION likert_polarisation(${COUNTS});
DROP FUNCTION likert_consensus(${COUNTS});
DROP FUNCTION likert_heat(${COUNTS});
DROP FUNCTION likert_value(${COUNTS});
DROP FUNCTION likert_unanimous(${COUNTS});
DROP FUNCTION likert_sum(${COUNTS});
DROP FUNCTION withheld_tag_votes(integer, integer);
DROP FUNCTION withheld_answer_count(integer, integer);
DROP FUNCTION withheld_answers(integer, integer, integer);
DROP INDEX question_tag_votes_private_idx;
`,
  )
}
