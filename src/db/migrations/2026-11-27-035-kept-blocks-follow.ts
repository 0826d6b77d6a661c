import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * The kept block sizes (migration 031) moved along a chain already walked: a change of delegations or eligibility
 * reads the user's standing before and after the write anyway (src/engines/liquid/liquid.engine.ts), and the chain
 * walk there now returns the users passed, so the kept sizes follow without walking each chain twice more. The
 * user's own block is counted only when a kept size lies on the chain.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
-- p_user's block leaves (p_sign -1) or joins (1) the chain p_path (liquid_chain's, from the user's own delegation).
CREATE FUNCTION liquid_blocks_follow(p_question integer, p_user integer, p_path integer[], p_looped boolean, p_sign integer)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  amount integer;
BEGIN
  IF cardinality(p_path) = 0
     OR NOT EXISTS (SELECT FROM liquid_blocks WHERE question_id = p_question AND user_id = ANY(p_path)) THEN
    RETURN;
  END IF;
  IF p_looped THEN
    DELETE FROM liquid_blocks WHERE question_id = p_question AND user_id = ANY(p_path);
    RETURN;
  END IF;
  amount := p_sign * (1 + liquid_intree(p_question, p_user));
  UPDATE liquid_blocks SET intree = intree + amount WHERE question_id = p_question AND user_id = ANY(p_path);
END $$;

CREATE OR REPLACE FUNCTION liquid_blocks_on_answer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  q integer := CASE WHEN TG_OP = 'INSERT' THEN NEW.question_id ELSE OLD.question_id END;
  u integer := CASE WHEN TG_OP = 'INSERT' THEN NEW.user_id ELSE OLD.user_id END;
  chain record;
BEGIN
  IF EXISTS (SELECT FROM liquid_blocks WHERE question_id = q) THEN
    SELECT * INTO chain FROM liquid_chain(q, u);
    PERFORM liquid_blocks_follow(q, u, chain.path, chain.looped, CASE WHEN TG_OP = 'INSERT' THEN -1 ELSE 1 END);
  END IF;
  RETURN NULL;
END $$;

DROP FUNCTION liquid_blocks_shift(integer[], integer, integer);
DROP FUNCTION liquid_blocks_move(integer, integer, integer);
`,
  )
}
