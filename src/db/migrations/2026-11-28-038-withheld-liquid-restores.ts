import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * A withheld private answer leaves no trace in the liquid figures either (docs/privacy.md, rule 1). Its author's
 * block (themselves and the unanswered people whose chains pass through them) left its representative's answer when
 * the answer was cast, so taking the answer off the figures is not enough: the block is put back where it would
 * count without the answer. With several withheld answers on one question, each block is put back as if none of
 * them had been given: a chain walks past every withheld answer (published_holder), and each block only holds its
 * own unanswered people, so the blocks add up to what the figures held before any of them.
 *
 * withheld_restores: those blocks, as (choice, level, weight) to add back to the stored liquid counts, while the
 * question holds 1 to k-1 private answers; nothing from the k-th on. withheld_answers (migration 022) gives them
 * as negative withheld weights, so orderings by a liquid figure agree with the figures shown; the figures
 * themselves read them through src/modules/questions/published-figures.ts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION published_holder(p_question integer, p_user integer, p_withheld integer[]) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
DECLARE
  visited integer[] := ARRAY[p_user];
  current integer := liquid_parent(p_question, p_user);
  carries boolean;
BEGIN
  LOOP
    IF current IS NULL OR current = ANY(visited) THEN RETURN NULL; END IF;
    IF NOT current = ANY(p_withheld) THEN
      carries := liquid_answer_carries(p_question, current);
      IF carries IS NOT NULL THEN RETURN CASE WHEN carries THEN current END; END IF;
    END IF;
    visited := visited || current;
    current := liquid_parent(p_question, current);
  END LOOP;
END $$;

CREATE FUNCTION withheld_restores(p_question integer, p_k integer)
RETURNS TABLE (choice_id integer, value smallint, amount integer)
LANGUAGE sql STABLE AS $$
  WITH held AS (
    (SELECT user_id FROM question_votes WHERE question_id = p_question AND private)
    UNION ALL
    (SELECT user_id FROM question_choice_votes WHERE question_id = p_question AND private)
    LIMIT p_k
  ), withheld AS (
    SELECT array_agg(user_id) AS users FROM held HAVING count(*) < p_k
  )
  SELECT a.choice_id, a.value, (1 + liquid_intree(p_question, u.id))::integer
  FROM withheld w
  CROSS JOIN unnest(w.users) AS u(id)
  CROSS JOIN LATERAL (SELECT published_holder(p_question, u.id, w.users) AS holder) AS h
  JOIN LATERAL (
    SELECT NULL::integer AS choice_id, v.value FROM question_votes v WHERE v.question_id = p_question AND v.user_id = h.holder
    UNION ALL
    SELECT v.choice_id, v.value FROM question_choice_votes v WHERE v.question_id = p_question AND v.user_id = h.holder
  ) AS a ON true
$$;

CREATE OR REPLACE FUNCTION withheld_answers(p_question integer, p_k integer, p_choice integer)
RETURNS TABLE (d1 integer, d2 integer, d3 integer, d4 integer, d5 integer, ds integer,
  l1 integer, l2 integer, l3 integer, l4 integer, l5 integer, ls integer)
LANGUAGE sql STABLE PARALLEL UNSAFE AS $$
  WITH held AS (
    (SELECT NULL::integer AS choice_id, value, liquid_weight FROM question_votes WHERE question_id = p_question AND private)
    UNION ALL
    (SELECT choice_id, value, liquid_weight FROM question_choice_votes WHERE question_id = p_question AND private)
    LIMIT p_k
  ), withheld AS (
    SELECT value, 1 AS direct, liquid_weight AS liquid FROM held
    WHERE choice_id IS NOT DISTINCT FROM p_choice AND (SELECT count(*) FROM held) < p_k
    UNION ALL
    SELECT value, 0, -amount FROM withheld_restores(p_question, p_k) WHERE choice_id IS NOT DISTINCT FROM p_choice
  )
  SELECT coalesce(sum(direct) FILTER (WHERE value = 1), 0)::integer, coalesce(sum(direct) FILTER (WHERE value = 2), 0)::integer,
    coalesce(sum(direct) FILTER (WHERE value = 3), 0)::integer, coalesce(sum(direct) FILTER (WHERE value = 4), 0)::integer,
    coalesce(sum(direct) FILTER (WHERE value = 5), 0)::integer, coalesce(sum(direct) FILTER (WHERE value IS NULL), 0)::integer,
    coalesce(sum(liquid) FILTER (WHERE value = 1), 0)::integer, coalesce(sum(liquid) FILTER (WHERE value = 2), 0)::integer,
    coalesce(sum(liquid) FILTER (WHERE value = 3), 0)::integer, coalesce(sum(liquid) FILTER (WHERE value = 4), 0)::integer,
    coalesce(sum(liquid) FILTER (WHERE value = 5), 0)::integer, coalesce(sum(liquid) FILTER (WHERE value IS NULL), 0)::integer
  FROM withheld
$$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
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
DROP FUNCTION withheld_restores(integer, integer);
DROP FUNCTION published_holder(integer, integer, integer[]);
`,
  )
}
