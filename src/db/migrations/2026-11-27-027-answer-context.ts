import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * An answer's first round trip: the question locked, then what the answer reads under that lock, in one call.
 * As two statements the question's row stayed locked across one more round trip for every answer, and answers to
 * one question wait for that row one after another. The read must follow the lock (it sees every answer committed
 * before the lock was granted): a statement's snapshot is taken when it starts, so one statement cannot both wait
 * for the lock and read after it, but each statement of a volatile function takes a snapshot of its own.
 *
 * Edits and withdrawals start the same way (answer_locked): the answer's question locked, then the answer, the clock
 * and, for a withdrawal, the answerer's liquid block, in one round trip instead of four or five.
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

-- The question's row locked: every answer to it waits its turn here. What the answer rules read of it, and its
-- counts (a likert answer's figures); NULL when it is gone. The transaction leaves its change notices to its
-- process (migration 023).
CREATE FUNCTION lock_question_for_answers(p_question integer) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  locked jsonb;
BEGIN
  SELECT to_jsonb(q) INTO locked FROM (
    SELECT id, user_id, subtype, publish, start_at, end_at,
           direct_minimum, direct_low, direct_medium, direct_high, direct_maximum, direct_skipped,
           liquid_minimum, liquid_low, liquid_medium, liquid_high, liquid_maximum, liquid_skipped
    FROM questions WHERE id = p_question FOR UPDATE) AS q;
  IF locked IS NOT NULL THEN PERFORM set_config('civic.notices_after_commit', 'on', true); END IF;
  RETURN locked;
END $$;

-- p_question for a likert answer, or p_choice for a pick (its question is found through it). No row: no such
-- question or choice.
CREATE FUNCTION answer_context(p_question integer, p_choice integer, p_user integer, p_answers text, p_collection integer)
RETURNS TABLE (question jsonb, choices jsonb, now timestamptz, default_private boolean, current jsonb, collection_exists boolean,
  intree integer, eligible boolean, question_id integer, carries boolean, vote_table text, vote_id integer,
  target_id integer, value smallint, skipped boolean, weight integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer := p_question;
  locked jsonb;
  held jsonb;
  blk record;
  tallies jsonb;
BEGIN
  IF p_choice IS NOT NULL THEN
    SELECT c.question_id INTO qid FROM question_choices c WHERE c.id = p_choice;
  END IF;
  IF qid IS NULL THEN RETURN; END IF;
  locked := lock_question_for_answers(qid);
  IF locked IS NULL THEN RETURN; END IF;
  -- From here on every statement sees the answers committed before the lock was granted.
  IF p_answers = 'question_votes' THEN
    SELECT to_jsonb(v) INTO held FROM question_votes v WHERE v.user_id = p_user AND v.question_id = qid FOR UPDATE;
  ELSE
    SELECT to_jsonb(v) INTO held FROM question_choice_votes v WHERE v.user_id = p_user AND v.question_id = qid FOR UPDATE;
  END IF;
  SELECT * INTO blk FROM liquid_block(qid, p_user);
  -- A pick's figures are its choices': the one picked, the one its current pick counts in, and, for a first pick,
  -- the one where the voter's weight counts without an answer; locked in id order, as every writer locks them.
  IF p_choice IS NOT NULL THEN
    SELECT jsonb_agg(to_jsonb(c)) INTO tallies FROM (
      SELECT id, direct_minimum, direct_low, direct_medium, direct_high, direct_maximum, direct_skipped,
             liquid_minimum, liquid_low, liquid_medium, liquid_high, liquid_maximum, liquid_skipped
      FROM question_choices
      WHERE id IN (p_choice, (held->>'choice_id')::integer,
                   CASE WHEN held IS NULL AND blk.vote_table = 'question_choice_votes' THEN blk.target_id END)
      ORDER BY id FOR UPDATE) AS c;
  END IF;
  RETURN QUERY
    SELECT locked, tallies, clock_timestamp(), (SELECT u.default_private FROM users u WHERE u.id = p_user), held,
           EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection), blk.intree, blk.eligible,
           blk.question_id, blk.carries, blk.vote_table, blk.vote_id, blk.target_id, blk.value, blk.skipped, blk.weight;
END $$;

-- An edit's or a withdrawal's first round trip: the answer's question locked, then under that lock the answer
-- itself (locked), the clock and, with p_block, the answerer's liquid block. No row: no such answer, or it is gone.
CREATE FUNCTION answer_locked(p_answers text, p_vote integer, p_block boolean)
RETURNS TABLE (question jsonb, vote jsonb, now timestamptz,
  intree integer, eligible boolean, question_id integer, carries boolean, vote_table text, vote_id integer,
  target_id integer, value smallint, skipped boolean, weight integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer;
  locked jsonb;
  held jsonb;
BEGIN
  IF p_answers = 'question_votes' THEN
    SELECT v.question_id INTO qid FROM question_votes v WHERE v.id = p_vote;
  ELSE
    SELECT v.question_id INTO qid FROM question_choice_votes v WHERE v.id = p_vote;
  END IF;
  IF qid IS NULL THEN RETURN; END IF;
  locked := lock_question_for_answers(qid);
  IF locked IS NULL THEN RETURN; END IF;
  IF p_answers = 'question_votes' THEN
    SELECT to_jsonb(v) INTO held FROM question_votes v WHERE v.id = p_vote FOR UPDATE;
  ELSE
    SELECT to_jsonb(v) INTO held FROM question_choice_votes v WHERE v.id = p_vote FOR UPDATE;
  END IF;
  IF held IS NULL THEN RETURN; END IF;
  IF p_block THEN
    RETURN QUERY SELECT locked, held, clock_timestamp(), b.* FROM liquid_block(qid, (held->>'user_id')::integer) AS b;
  ELSE
    RETURN QUERY SELECT locked, held, clock_timestamp(), NULL::integer, NULL::boolean, qid, NULL::boolean, NULL::text,
      NULL::integer, NULL::integer, NULL::smallint, NULL::boolean, NULL::integer;
  END IF;
END $$;
`,
  )
}
