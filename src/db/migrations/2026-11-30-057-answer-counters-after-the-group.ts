import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/** The arguments of one cast, as arrays, in the order of cast_likert's parameters (cast_pick has no importance). */
const LIKERT_ARRAYS = `p_question integer[], p_person integer[], p_staff boolean[], p_value smallint[], p_private boolean[],
  p_collection integer[], p_importance smallint[], p_keep_importance boolean[], p_interface text[], p_os text[],
  p_browser text[], p_parent_url text[], p_location text[]`
const PICK_ARRAYS = `p_choice integer[], p_person integer[], p_staff boolean[], p_value smallint[], p_private boolean[],
  p_collection integer[], p_interface text[], p_os text[], p_browser text[], p_parent_url text[], p_location text[]`

/** One group function: the casts in question order, then person order, and the counters at the end. */
const group = (call: 'cast_likert' | 'cast_pick', arrays: string, row: string, names: string[], order: string) => `
CREATE FUNCTION ${call}_group(${arrays})
RETURNS TABLE(n bigint, outcome text, carried integer, vote ${row}) LANGUAGE plpgsql AS $$
DECLARE
  a record;
BEGIN
  PERFORM set_config('civic.answer_counts_after', 'on', true);
  FOR a IN
    SELECT u.* FROM unnest(${names.map((name) => `p_${name}`).join(', ')})
      WITH ORDINALITY AS u(${names.join(', ')}, n)
    ${order}
  LOOP
    RETURN QUERY SELECT a.n, r.outcome, r.carried, r.vote FROM ${call}(${names.map((name) => `a.${name}`).join(', ')}) AS r;
  END LOOP;
  PERFORM count_answers_after();
END $$;`

const ANALYTICS = ['interface', 'os', 'browser', 'parent_url', 'location']
const GROUPS = [
  group(
    'cast_likert',
    LIKERT_ARRAYS,
    'question_votes',
    [...['question', 'person', 'staff', 'value', 'private', 'collection', 'importance', 'keep_importance'], ...ANALYTICS],
    'ORDER BY u.question, u.person, u.n',
  ),
  // In the order of the choices' questions, not of the choices: question by question across the group.
  group(
    'cast_pick',
    PICK_ARRAYS,
    'question_choice_votes',
    ['choice', 'person', 'staff', 'value', 'private', 'collection', ...ANALYTICS],
    'LEFT JOIN question_choices c ON c.id = u.choice ORDER BY c.question_id, u.person, u.n',
  ),
].join('\n')

/**
 * A group of answers locks in one order whatever process casts it. Two processes' groups deadlocked about once in an
 * 8 s two-process surge: each cast took its voter's answer counters (user_answer_counts) as it went, so a group could
 * hold a person's counters while it waited for a question's serial lock (4702, a private answer) that another group
 * held while it waited for those counters. Now an answer group (cast_likert_group, cast_pick_group) casts in question
 * order, then person order, and writes every answer's counters at its end, in person order: a group waiting on a
 * question's lock holds nobody's counters, and two groups take the locks of questions in the same order. Taking the
 * counters first instead would deadlock with edits and withdrawals, which close a question's gate before the
 * counters. Alone (an edit, a withdrawal, a cast called by itself, the previous release's groups), count_user_answer
 * writes at once as before; its body is count_user_answer_now's. Expand only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
ALTER FUNCTION count_user_answer(integer, boolean, boolean, boolean, timestamptz) RENAME TO count_user_answer_now;

CREATE FUNCTION count_user_answer(p_user integer, p_pick boolean, p_was boolean, p_now boolean, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('civic.answer_counts_after', true) = 'on' THEN
    -- In an answer group: kept for its end (count_answers_after), so the group holds nobody's counters before.
    PERFORM set_config('civic.answer_counts', (coalesce(nullif(current_setting('civic.answer_counts', true), ''), '[]')::jsonb
      || jsonb_build_array(jsonb_build_object('user', p_user, 'pick', p_pick, 'was', p_was, 'now', p_now, 'at', p_at)))::text, true);
    RETURN;
  END IF;
  PERFORM count_user_answer_now(p_user, p_pick, p_was, p_now, p_at);
END $$;

CREATE FUNCTION count_answers_after() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c record;
BEGIN
  PERFORM set_config('civic.answer_counts_after', '', true);
  FOR c IN
    SELECT (e->>'user')::integer AS person, (e->>'pick')::boolean AS pick, (e->>'was')::boolean AS was,
      (e->>'now')::boolean AS now, (e->>'at')::timestamptz AS at
    FROM jsonb_array_elements(coalesce(nullif(current_setting('civic.answer_counts', true), ''), '[]')::jsonb)
      WITH ORDINALITY AS k(e, i)
    ORDER BY 1, i
  LOOP
    PERFORM count_user_answer_now(c.person, c.pick, c.was, c.now, c.at);
  END LOOP;
  PERFORM set_config('civic.answer_counts', '', true);
END $$;

${GROUPS}
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP FUNCTION cast_likert_group(${LIKERT_ARRAYS});
DROP FUNCTION cast_pick_group(${PICK_ARRAYS});
DROP FUNCTION count_answers_after();
DROP FUNCTION count_user_answer(integer, boolean, boolean, boolean, timestamptz);
ALTER FUNCTION count_user_answer_now(integer, boolean, boolean, boolean, timestamptz) RENAME TO count_user_answer;
`,
  )
}
