import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * An answer's first round trip: the question locked, then what the answer reads under that lock, in one call.
 * As two statements the question's row stayed locked across one more round trip for every answer, and answers to
 * one question wait for that row one after another. The read must follow the lock (it sees every answer committed
 * before the lock was granted): a statement's snapshot is taken when it starts, so one statement cannot both wait
 * for the lock and read after it, but each statement of a volatile function takes a snapshot of its own.
 *
 * liquid_block: the voter's liquid block on a question (src/engines/liquid/liquid.repository.ts, block): how many
 * unanswered people's chains pass through them, whether their account may carry weight, and the answer their own
 * chain reaches (its representative's vote row), read by the answer path and by withdrawals.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION liquid_block(p_question integer, p_user integer)
RETURNS TABLE (intree integer, eligible boolean, question_id integer, carries boolean, vote_table text, vote_id integer,
  target_id integer, value smallint, skipped boolean, weight integer)
LANGUAGE sql STABLE AS $$
  SELECT liquid_intree(p_question, p_user), liquid_eligible(p_user), p_question, NULL::boolean,
         a.vote_table, a.vote_id, a.target_id, a.value, a.skipped, a.weight
  FROM (SELECT liquid_representative(p_question, p_user) AS holder) AS r
  LEFT JOIN LATERAL (
    SELECT 'question_votes' AS vote_table, v.id AS vote_id, v.question_id AS target_id, v.value, v.skipped, v.liquid_weight AS weight
    FROM question_votes v WHERE v.question_id = p_question AND v.user_id = r.holder
    UNION ALL
    SELECT 'question_choice_votes', v.id, v.choice_id, v.value, v.skipped, v.liquid_weight
    FROM question_choice_votes v WHERE v.question_id = p_question AND v.user_id = r.holder
  ) AS a ON true
$$;

-- p_question for a likert answer, or p_choice for a pick (its question is found through it). No row: no such
-- question or choice. The transaction leaves its change notices to its process (migration 023).
CREATE FUNCTION answer_context(p_question integer, p_choice integer, p_user integer, p_answers text, p_collection integer)
RETURNS TABLE (question jsonb, now timestamptz, default_private boolean, current jsonb, collection_exists boolean,
  intree integer, eligible boolean, question_id integer, carries boolean, vote_table text, vote_id integer,
  target_id integer, value smallint, skipped boolean, weight integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer := p_question;
  locked jsonb;
  held jsonb;
BEGIN
  IF p_choice IS NOT NULL THEN
    SELECT c.question_id INTO qid FROM question_choices c WHERE c.id = p_choice;
  END IF;
  IF qid IS NULL THEN RETURN; END IF;
  SELECT to_jsonb(q) INTO locked FROM (
    SELECT id, user_id, subtype, publish, start_at, end_at,
           direct_minimum, direct_low, direct_medium, direct_high, direct_maximum, direct_skipped,
           liquid_minimum, liquid_low, liquid_medium, liquid_high, liquid_maximum, liquid_skipped
    FROM questions WHERE id = qid FOR UPDATE) AS q;
  IF locked IS NULL THEN RETURN; END IF;
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  -- From here on every statement sees the answers committed before the lock was granted.
  IF p_answers = 'question_votes' THEN
    SELECT to_jsonb(v) INTO held FROM question_votes v WHERE v.user_id = p_user AND v.question_id = qid FOR UPDATE;
  ELSE
    SELECT to_jsonb(v) INTO held FROM question_choice_votes v WHERE v.user_id = p_user AND v.question_id = qid FOR UPDATE;
  END IF;
  RETURN QUERY
    SELECT locked, clock_timestamp(), (SELECT u.default_private FROM users u WHERE u.id = p_user), held,
           EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection), b.*
    FROM liquid_block(qid, p_user) AS b;
END $$;
`,
  )
}
