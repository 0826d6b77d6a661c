import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Liquid resolution in the database, so that every process applies a change the same way inside the
 * writer's transaction (docs/liquid-democracy.md). The functions read only what one question needs:
 * one user's settings, one chain, one block of delegators, each through an index.
 *
 * - liquid_eligible(u): an active, undeleted account; only those give or receive delegated weight.
 * - liquid_answer_carries(q, u): NULL without an answer on q; true for a public answer by an eligible
 *   user (it carries the weight of those it represents); false for one that counts once only.
 * - liquid_parent(q, u): the trustee of u's winning delegation for q (R2), or NULL for none or a block.
 * - liquid_representative(q, u): where an unanswered u's weight goes: the first answer on the chain
 *   if it carries, else NULL (a private answer, a dead end, a block or a loop).
 * - liquid_intree(q, u): how many unanswered users' chains pass through u (u not counted).
 * A change log records edits of an answered question's tags, which re-route delegated weight.
 */
const schema = `
CREATE FUNCTION liquid_eligible(p_user integer) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE
  ok boolean;
BEGIN
  SELECT is_active AND NOT is_deleted INTO ok FROM users WHERE id = p_user;
  RETURN coalesce(ok, false);
END
$$;

CREATE FUNCTION liquid_answer_carries(p_question integer, p_user integer) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE
  is_private boolean;
BEGIN
  SELECT private INTO is_private FROM question_votes WHERE question_id = p_question AND user_id = p_user;
  IF NOT FOUND THEN
    SELECT private INTO is_private FROM question_choice_votes WHERE question_id = p_question AND user_id = p_user;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  RETURN NOT is_private AND liquid_eligible(p_user);
END
$$;

CREATE FUNCTION liquid_parent(p_question integer, p_user integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  trustee integer;
BEGIN
  IF NOT liquid_eligible(p_user) THEN
    RETURN NULL;
  END IF;
  SELECT qd.trustee_id INTO trustee FROM question_delegations qd
  WHERE qd.question_id = p_question AND qd.user_id = p_user AND qd.revoked_at IS NULL;
  IF FOUND THEN
    RETURN trustee;
  END IF;
  SELECT td.trustee_id INTO trustee
  FROM tag_delegations td JOIN question_tags qt ON qt.tag_id = td.tag_id AND qt.question_id = p_question
  WHERE td.user_id = p_user AND td.revoked_at IS NULL
  ORDER BY CASE WHEN qt.position = 0 THEN 0 ELSE 1 END, td.priority, qt.position, td.id
  LIMIT 1;
  RETURN trustee;
END
$$;

CREATE FUNCTION liquid_representative(p_question integer, p_user integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  visited integer[] := ARRAY[p_user];
  current integer := liquid_parent(p_question, p_user);
  carries boolean;
BEGIN
  LOOP
    IF current IS NULL OR current = ANY(visited) THEN
      RETURN NULL;
    END IF;
    carries := liquid_answer_carries(p_question, current);
    IF carries IS NOT NULL THEN
      RETURN CASE WHEN carries THEN current END;
    END IF;
    visited := visited || current;
    current := liquid_parent(p_question, current);
  END LOOP;
END
$$;

-- A level of the walk at a time: the unanswered, active users delegating to someone on the frontier
-- whose winning delegation for the question (R2) names that person.
CREATE FUNCTION liquid_intree(p_question integer, p_user integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  frontier integer[] := ARRAY[p_user];
  reached integer[];
  total integer := 0;
BEGIN
  LOOP
    WITH candidates AS (
      SELECT qd.user_id FROM question_delegations qd
      WHERE qd.question_id = p_question AND qd.trustee_id = ANY(frontier) AND qd.revoked_at IS NULL
      UNION
      SELECT td.user_id FROM question_tags qt
      JOIN tag_delegations td ON td.tag_id = qt.tag_id AND td.trustee_id = ANY(frontier) AND td.revoked_at IS NULL
      WHERE qt.question_id = p_question
    ), eligible AS (
      SELECT c.user_id FROM candidates c JOIN users u ON u.id = c.user_id AND u.is_active AND NOT u.is_deleted
      WHERE c.user_id <> p_user
        AND NOT EXISTS (SELECT 1 FROM question_votes v WHERE v.question_id = p_question AND v.user_id = c.user_id)
        AND NOT EXISTS (SELECT 1 FROM question_choice_votes v WHERE v.question_id = p_question AND v.user_id = c.user_id)
    ), winners AS (
      SELECT DISTINCT ON (d.user_id) d.user_id, d.trustee_id FROM (
        SELECT qd.user_id, qd.trustee_id, 0 AS rank, 0 AS priority, 0 AS position, qd.id
        FROM question_delegations qd JOIN eligible e ON e.user_id = qd.user_id
        WHERE qd.question_id = p_question AND qd.revoked_at IS NULL
        UNION ALL
        SELECT td.user_id, td.trustee_id, CASE WHEN qt.position = 0 THEN 1 ELSE 2 END, td.priority, qt.position, td.id
        FROM eligible e JOIN tag_delegations td ON td.user_id = e.user_id AND td.revoked_at IS NULL
        JOIN question_tags qt ON qt.tag_id = td.tag_id AND qt.question_id = p_question
      ) AS d
      ORDER BY d.user_id, d.rank, d.priority, d.position, d.id
    )
    SELECT coalesce(array_agg(w.user_id), '{}') INTO reached FROM winners w WHERE w.trustee_id = ANY(frontier);
    EXIT WHEN cardinality(reached) = 0;
    total := total + cardinality(reached);
    frontier := reached;
  END LOOP;
  RETURN total;
END
$$;

CREATE INDEX question_delegations_user_idx ON question_delegations (user_id) WHERE revoked_at IS NULL;

CREATE TABLE question_tag_changes (
  id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  question_id integer NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  user_id integer REFERENCES users(id) ON DELETE SET NULL,
  tags_before integer[] NOT NULL,
  tags_after integer[] NOT NULL,
  answered boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX question_tag_changes_question_idx ON question_tag_changes (question_id, created_at);
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, schema)
}
