import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/** Migration 043's count: the answers a question's unreleased rows hold now, less those its figures show. */
const COUNT = `SELECT (count(*) FILTER (WHERE EXISTS (SELECT 1 FROM question_votes v WHERE v.question_id = r.question_id AND v.user_id = r.user_id))
    - count(*) FILTER (WHERE r.released_answer AND r.released_choice IS NULL))::integer
  FROM unreleased_answers r WHERE r.question_id = p_question`

/**
 * unreleased_vote_count in PL/pgSQL: as a SQL function with an aggregate PostgreSQL never inlines it and planned its
 * body again at every call, three calls a private answer (settle_unreleased_votes, from the triggers of the answer
 * and of its unreleased row, and once per row of a batch released): 0.06 ms each, five times its statement. The same
 * expression, its plan kept per connection (expand only).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION unreleased_vote_count(p_question integer) RETURNS integer LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (${COUNT});
END $$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION unreleased_vote_count(p_question integer) RETURNS integer LANGUAGE sql STABLE AS $$
  ${COUNT}
$$;
`,
  )
}
