import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Kept block sizes (docs/liquid-democracy.md, Kept blocks): liquid_intree(q, u) walks everyone delegating to u on q,
 * breadth first, which for a trustee of 70,000 people costs about what resolving the whole question does. A full
 * resolution (recompute, the seed, a tag edit) stores the size of every block of at least a threshold
 * (liquid.rebuild.ts); every move keeps the stored sizes exact, so liquid_intree reads them instead of walking.
 *
 * A move of x's block (x and everyone counted in it) changes the size of each block on the chain x's own delegation
 * leads along (liquid_chain: the users passed, the answer reached included), by the size of x's block: it leaves
 * that chain when x answers or changes delegation, and joins it when x withdraws or delegates anew. A chain that
 * comes back on itself (a loop) changes its members' sizes otherwise: their kept sizes are dropped, and read by
 * walking until the next full resolution.
 *
 * Answers move by a trigger on both answer tables, whoever writes them; delegation and eligibility changes through
 * liquid_blocks_shift, which the liquid engine calls before and after such a write (liquid.effects.ts). A question
 * with no kept block pays one index probe per answer.
 */
/** No answer shows a kept size: what one moves (weights, counts) is written beside it and announced by its table. */
export const KEPT_TABLES_WITHOUT_NOTICE = ['liquid_blocks'] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE TABLE liquid_blocks (
  question_id integer NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  intree integer NOT NULL CHECK (intree >= 0),
  PRIMARY KEY (question_id, user_id)
);

ALTER FUNCTION liquid_intree(integer, integer) RENAME TO liquid_intree_walk;

CREATE FUNCTION liquid_intree(p_question integer, p_user integer) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT b.intree FROM liquid_blocks b WHERE b.question_id = p_question AND b.user_id = p_user),
                  liquid_intree_walk(p_question, p_user))
$$;

-- The users the chain from p_user's own delegation passes, in order, up to the answer it reaches (included), a dead
-- end or a block; looped when it comes back to a user already on it (p_user included).
CREATE FUNCTION liquid_chain(p_question integer, p_user integer, OUT path integer[], OUT looped boolean)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  visited integer[] := ARRAY[p_user];
  current integer := liquid_parent(p_question, p_user);
BEGIN
  path := '{}';
  looped := false;
  LOOP
    IF current IS NULL THEN RETURN; END IF;
    IF current = ANY(visited) THEN looped := true; RETURN; END IF;
    path := path || current;
    IF liquid_answer_carries(p_question, current) IS NOT NULL THEN RETURN; END IF;
    visited := visited || current;
    current := liquid_parent(p_question, current);
  END LOOP;
END $$;

-- p_amount people (a block) leave (negative) or join (positive) the chain from p_user's own delegation.
CREATE FUNCTION liquid_blocks_move(p_question integer, p_user integer, p_amount integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  chain record;
BEGIN
  SELECT * INTO chain FROM liquid_chain(p_question, p_user);
  IF cardinality(chain.path) = 0 THEN RETURN; END IF;
  IF chain.looped THEN
    DELETE FROM liquid_blocks WHERE question_id = p_question AND user_id = ANY(chain.path);
  ELSE
    UPDATE liquid_blocks SET intree = intree + p_amount WHERE question_id = p_question AND user_id = ANY(chain.path);
  END IF;
END $$;

-- An answer given (the answerer's block stops at it) or withdrawn (it goes on along their chain again).
CREATE FUNCTION liquid_blocks_on_answer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  q integer := CASE WHEN TG_OP = 'INSERT' THEN NEW.question_id ELSE OLD.question_id END;
  u integer := CASE WHEN TG_OP = 'INSERT' THEN NEW.user_id ELSE OLD.user_id END;
BEGIN
  IF EXISTS (SELECT FROM liquid_blocks WHERE question_id = q) THEN
    PERFORM liquid_blocks_move(q, u, (1 + liquid_intree(q, u)) * CASE WHEN TG_OP = 'INSERT' THEN -1 ELSE 1 END);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER question_votes_liquid_blocks AFTER INSERT OR DELETE ON question_votes
  FOR EACH ROW EXECUTE FUNCTION liquid_blocks_on_answer();
CREATE TRIGGER question_choice_votes_liquid_blocks AFTER INSERT OR DELETE ON question_choice_votes
  FOR EACH ROW EXECUTE FUNCTION liquid_blocks_on_answer();

-- p_user's block leaves (p_sign -1, before a change of their delegations or eligibility) or joins (1, after it) their
-- chain on each of these questions they have not answered (an answer stops the block whatever the delegations).
CREATE FUNCTION liquid_blocks_shift(p_questions integer[], p_user integer, p_sign integer) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  q integer;
BEGIN
  FOR q IN SELECT DISTINCT b.question_id FROM liquid_blocks b WHERE b.question_id = ANY(p_questions) ORDER BY 1 LOOP
    CONTINUE WHEN EXISTS (SELECT FROM question_votes v WHERE v.question_id = q AND v.user_id = p_user)
      OR EXISTS (SELECT FROM question_choice_votes v WHERE v.question_id = q AND v.user_id = p_user);
    PERFORM liquid_blocks_move(q, p_user, p_sign * (1 + liquid_intree(q, p_user)));
  END LOOP;
END $$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP FUNCTION liquid_blocks_shift(integer[], integer, integer);
DROP TRIGGER question_choice_votes_liquid_blocks ON question_choice_votes;
DROP TRIGGER question_votes_liquid_blocks ON question_votes;
DROP FUNCTION liquid_blocks_on_answer();
DROP FUNCTION liquid_blocks_move(integer, integer, integer);
DROP FUNCTION liquid_chain(integer, integer);
DROP FUNCTION liquid_intree(integer, integer);
ALTER FUNCTION liquid_intree_walk(integer, integer) RENAME TO liquid_intree;
DROP TABLE liquid_blocks;
`,
  )
}
