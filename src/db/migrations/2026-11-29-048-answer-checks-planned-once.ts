import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Two checks every first answer makes, in PL/pgSQL instead of SQL: a SQL function whose body holds a sub-select is
 * never inlined, and PostgreSQL plans such a body again in every transaction that calls it; a PL/pgSQL function's
 * plans are kept by the connection. The same bodies and signatures as migrations 031 and 046 (expand only):
 * `answer_reaches_others` went from 0.26 to 0.12 ms of server time a call (pgbench, one client, demo seed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION liquid_intree(p_question integer, p_user integer) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT b.intree FROM liquid_blocks b WHERE b.question_id = p_question AND b.user_id = p_user),
                  liquid_intree_walk(p_question, p_user));
END
$$;

CREATE OR REPLACE FUNCTION answer_reaches_others(p_question integer, p_user integer, p_private boolean, p_was_private boolean,
  p_weight integer) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN p_private OR coalesce(p_was_private, false) OR coalesce(p_weight, 1) <> 1
    OR EXISTS (SELECT FROM unreleased_answers u WHERE u.question_id = p_question AND u.user_id = p_user)
    OR (p_weight IS NULL AND (liquid_parent(p_question, p_user) IS NOT NULL OR liquid_intree(p_question, p_user) > 0));
END
$$;
`,
  )
}

/** The SQL bodies back, as migrations 031 and 046 left them. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE OR REPLACE FUNCTION liquid_intree(p_question integer, p_user integer) RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT b.intree FROM liquid_blocks b WHERE b.question_id = p_question AND b.user_id = p_user),
                  liquid_intree_walk(p_question, p_user))
$$;

CREATE OR REPLACE FUNCTION answer_reaches_others(p_question integer, p_user integer, p_private boolean, p_was_private boolean,
  p_weight integer) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT p_private OR coalesce(p_was_private, false) OR coalesce(p_weight, 1) <> 1
    OR EXISTS (SELECT FROM unreleased_answers u WHERE u.question_id = p_question AND u.user_id = p_user)
    OR (p_weight IS NULL AND (liquid_parent(p_question, p_user) IS NOT NULL OR liquid_intree(p_question, p_user) > 0))
$$;
`,
  )
}
