import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'
import { DELEGATION_ORDER_SQL, DELEGATION_RANK_SQL } from '../delegation-order.ts'

/**
 * A user's delegations on a question in the order they compete (liquid_delegations), built from the one definition
 * in src/db/delegation-order.ts: liquid_parent takes the first, and the representation of a delegator
 * shows it. Before, the order was written out in liquid_parent (migration 006) and again in the representation's
 * query.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION liquid_delegations(p_question integer, p_user integer)
RETURNS TABLE (kind text, id integer, tag_id integer, trustee_id integer)
LANGUAGE sql STABLE AS $$
  SELECT c.kind, c.id, c.tag_id, c.trustee_id FROM (
    SELECT d.*, ${DELEGATION_RANK_SQL('d.kind', 'd.position')} AS rank FROM (
      SELECT 'question' AS kind, qd.id, NULL::integer AS tag_id, qd.trustee_id, 0 AS priority, 0 AS position
      FROM question_delegations qd WHERE qd.question_id = p_question AND qd.user_id = p_user AND qd.revoked_at IS NULL
      UNION ALL
      SELECT 'tag', td.id, td.tag_id, td.trustee_id, td.priority, qt.position
      FROM tag_delegations td JOIN question_tags qt ON qt.tag_id = td.tag_id AND qt.question_id = p_question
      WHERE td.user_id = p_user AND td.revoked_at IS NULL
    ) AS d
  ) AS c
  ORDER BY ${DELEGATION_ORDER_SQL('c')}
$$;

-- The trustee of the user's winning delegation (NULL: none, a block, or an account that may not delegate).
CREATE OR REPLACE FUNCTION liquid_parent(p_question integer, p_user integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF NOT liquid_eligible(p_user) THEN RETURN NULL; END IF;
  RETURN (SELECT d.trustee_id FROM liquid_delegations(p_question, p_user) AS d LIMIT 1);
END $$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION liquid_parent(p_question integer, p_user integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
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
DROP FUNCTION liquid_delegations(integer, integer);
`,
  )
}
