import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * liquid_intree answers 0 at once when nobody delegates to the user on the question, which is most
 * voters: the block read of a new answer then costs two index probes instead of one step of the walk.
 */
const schema = `
CREATE OR REPLACE FUNCTION liquid_intree(p_question integer, p_user integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  frontier integer[] := ARRAY[p_user];
  reached integer[];
  total integer := 0;
BEGIN
  -- Most users carry nobody: two index probes say so without planning the walk.
  IF NOT EXISTS (SELECT 1 FROM question_delegations qd WHERE qd.question_id = p_question AND qd.trustee_id = p_user AND qd.revoked_at IS NULL)
     AND NOT EXISTS (SELECT 1 FROM question_tags qt JOIN tag_delegations td ON td.tag_id = qt.tag_id AND td.trustee_id = p_user AND td.revoked_at IS NULL
                     WHERE qt.question_id = p_question) THEN
    RETURN 0;
  END IF;
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
`

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, schema)
}
