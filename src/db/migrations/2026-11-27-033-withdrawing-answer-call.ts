import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * A withdrawal as one call (withdraw_answer), as migration 032 does for a replacement: what withdrawAnswer of
 * src/modules/votes/answer-core.ts does, in the same lock order (the question, the answer, for a pick the choices in id
 * order, the user, the tags). The answer goes to the history and its row away (the kept block sizes follow by trigger,
 * migration 031); its counts leave its level; the answerer's block (themselves and the unanswered people whose chains
 * pass through them) joins the answer their own chain reaches now, whose weight and counts grow by it; their counters
 * drop, their latest answer times are found again; the question's tags count one answer less.
 *
 * Outcomes, with the question: 'withdrawn'; 'missing' (no such answer); 'not_open' or 'closed' (outside the voting window); or, having
 * written nothing, 'general' for a public answer that carried others' votes: its direct delegators are told, through
 * the service's notification writer.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
-- An edit's or a withdrawal's locks: the answer's question, then the answer itself (for a pick, its choice as target),
-- with the question's window and the clock read under the lock. No row: no such answer, or it went meanwhile.
CREATE FUNCTION lock_held_answer(p_pick boolean, p_vote integer)
RETURNS TABLE (id integer, question_id integer, target integer, user_id integer, value smallint, skipped boolean, private boolean,
  liquid_weight integer, modified_at timestamptz, importance smallint, start_at timestamptz, end_at timestamptz, at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer;
  q record;
  now_at timestamptz;
BEGIN
  IF p_pick THEN
    SELECT v.question_id INTO qid FROM question_choice_votes v WHERE v.id = p_vote;
  ELSE
    SELECT v.question_id INTO qid FROM question_votes v WHERE v.id = p_vote;
  END IF;
  IF qid IS NULL THEN RETURN; END IF;
  SELECT qq.start_at, qq.end_at INTO q FROM questions qq WHERE qq.id = qid FOR UPDATE;
  IF NOT FOUND THEN RETURN; END IF;
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  now_at := clock_timestamp();
  IF p_pick THEN
    RETURN QUERY SELECT v.id, v.question_id, v.choice_id, v.user_id, v.value, v.skipped, v.private, v.liquid_weight, v.modified_at,
      NULL::smallint, q.start_at, q.end_at, now_at
    FROM question_choice_votes v WHERE v.id = p_vote AND v.question_id = qid FOR UPDATE;
  ELSE
    RETURN QUERY SELECT v.id, v.question_id, v.question_id, v.user_id, v.value, v.skipped, v.private, v.liquid_weight, v.modified_at,
      v.importance, q.start_at, q.end_at, now_at
    FROM question_votes v WHERE v.id = p_vote AND v.question_id = qid FOR UPDATE;
  END IF;
END $$;

CREATE FUNCTION withdraw_answer(p_pick boolean, p_vote integer, OUT outcome text, OUT question integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer;
  at timestamptz;
  held record;
  blk record;
  moved integer;
BEGIN
  SELECT * INTO held FROM lock_held_answer(p_pick, p_vote);
  IF held.id IS NULL THEN outcome := 'missing'; RETURN; END IF;
  qid := held.question_id;
  question := qid;
  at := held.at;
  IF held.start_at IS NOT NULL AND at < held.start_at THEN outcome := 'not_open'; RETURN; END IF;
  IF held.end_at IS NOT NULL AND at >= held.end_at THEN outcome := 'closed'; RETURN; END IF;
  SELECT * INTO blk FROM liquid_block(qid, held.user_id);
  IF NOT held.private AND blk.intree > 0 THEN outcome := 'general'; RETURN; END IF;
  moved := 1 + blk.intree;

  IF p_pick THEN
    PERFORM FROM question_choices WHERE id IN (held.target, CASE WHEN blk.vote_table = 'question_choice_votes' THEN blk.target_id END)
      ORDER BY id FOR UPDATE;
    INSERT INTO question_choice_vote_history (choice_id, question_id, user_id, value, skipped, private, answered_at, replaced_at)
    VALUES (held.target, qid, held.user_id, held.value, held.skipped, held.private, held.modified_at, at);
    DELETE FROM question_choice_votes WHERE id = held.id;
    PERFORM move_choice_counts(held.target, CASE WHEN held.skipped THEN NULL ELSE held.value END, -1, -held.liquid_weight);
    IF blk.vote_table = 'question_choice_votes' THEN
      UPDATE question_choice_votes SET liquid_weight = liquid_weight + moved WHERE id = blk.vote_id;
      PERFORM move_choice_counts(blk.target_id, CASE WHEN blk.skipped THEN NULL ELSE blk.value END, 0, moved);
    END IF;
  ELSE
    INSERT INTO question_vote_history (question_id, user_id, value, skipped, importance, private, answered_at, replaced_at)
    VALUES (qid, held.user_id, held.value, held.skipped, held.importance, held.private, held.modified_at, at);
    DELETE FROM question_votes WHERE id = held.id;
    IF blk.vote_table = 'question_votes' THEN
      UPDATE question_votes SET liquid_weight = liquid_weight + moved WHERE id = blk.vote_id;
    END IF;
    PERFORM move_likert_counts(qid, CASE WHEN held.skipped THEN NULL ELSE held.value END, -1, -held.liquid_weight,
      CASE WHEN blk.skipped THEN NULL ELSE blk.value END, 0, CASE WHEN blk.vote_table = 'question_votes' THEN moved ELSE 0 END);
  END IF;

  -- The user row locked before their latest times are found again (src/engines/figures/counters.repository.ts).
  PERFORM FROM users WHERE id = held.user_id FOR NO KEY UPDATE;
  UPDATE users SET
    count_question_votes = count_question_votes - CASE WHEN p_pick THEN 0 ELSE 1 END,
    count_choice_votes = count_choice_votes - CASE WHEN p_pick THEN 1 ELSE 0 END,
    count_votes = count_votes - 1,
    last_answer_time = greatest((SELECT max(modified_at) FROM question_votes WHERE user_id = held.user_id),
                                (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = held.user_id)),
    public_count_question_votes = public_count_question_votes - CASE WHEN p_pick OR held.private THEN 0 ELSE 1 END,
    public_count_choice_votes = public_count_choice_votes - CASE WHEN p_pick AND NOT held.private THEN 1 ELSE 0 END,
    public_count_votes = public_count_votes - CASE WHEN held.private THEN 0 ELSE 1 END,
    public_last_answer_time = CASE WHEN held.private THEN public_last_answer_time ELSE greatest(
      (SELECT max(modified_at) FROM question_votes WHERE user_id = held.user_id AND NOT private),
      (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = held.user_id AND NOT private)) END
  WHERE id = held.user_id;

  IF NOT p_pick THEN
    UPDATE tags SET votes_count = votes_count - 1 WHERE id IN (
      SELECT t.id FROM tags t WHERE t.id IN (
        SELECT tag_id FROM question_tags WHERE question_id = qid
        UNION SELECT topic_id FROM questions WHERE id = qid AND topic_id IS NOT NULL)
      ORDER BY t.id FOR UPDATE);
  END IF;
  outcome := 'withdrawn'; RETURN;
END $$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `DROP FUNCTION withdraw_answer(boolean, integer);
DROP FUNCTION lock_held_answer(boolean, integer);`,
  )
}
