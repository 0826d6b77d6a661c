import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * One walk of a delegation chain: liquid_chain (migration 031) also says which answer the chain reaches when that
 * answer carries weight, and liquid_representative (migration 006) becomes that column, instead of a second copy of
 * the same walk.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP FUNCTION liquid_chain(integer, integer);

-- The users the chain from p_user's own delegation passes, in order, up to the answer it reaches (included), a dead
-- end or a block; looped when it comes back to a user already on it (p_user included); holder, the answer reached
-- when it carries weight (liquid_representative).
CREATE FUNCTION liquid_chain(p_question integer, p_user integer, OUT path integer[], OUT looped boolean, OUT holder integer)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  visited integer[] := ARRAY[p_user];
  current integer := liquid_parent(p_question, p_user);
  carries boolean;
BEGIN
  path := '{}';
  looped := false;
  LOOP
    IF current IS NULL THEN RETURN; END IF;
    IF current = ANY(visited) THEN looped := true; RETURN; END IF;
    path := path || current;
    carries := liquid_answer_carries(p_question, current);
    IF carries IS NOT NULL THEN
      IF carries THEN holder := current; END IF;
      RETURN;
    END IF;
    visited := visited || current;
    current := liquid_parent(p_question, current);
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION liquid_representative(p_question integer, p_user integer) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT holder FROM liquid_chain(p_question, p_user)
$$;
`,
  )
}
