import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * A first pick (an answer to a multiple-choice question) as one call, as migration 029 does for a likert answer:
 * the question locked through the choice, the rules, the liquid block, then the choices the pick touches locked in id
 * order (the one picked, and the one the voter's weight counted at without an answer), the answer written, the
 * representative's vote losing the block, the choices' counts moved by deltas, and the user's counters. Picks count in
 * no tag. Outcomes as cast_first_likert's, with 'not_mcq' for a choice of a question that is not multiple choice; a
 * skipped pick tells the delegators too, so any public pick by someone who carries others' weight is 'general'.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION move_choice_counts(p_choice integer, p_value smallint, p_direct integer, p_liquid integer)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  d record;
  l record;
BEGIN
  SELECT * INTO d FROM likert_count_deltas(p_value, p_direct);
  SELECT * INTO l FROM likert_count_deltas(p_value, p_liquid);
  UPDATE question_choices SET
    direct_minimum = direct_minimum + d.c1, direct_low = direct_low + d.c2, direct_medium = direct_medium + d.c3,
    direct_high = direct_high + d.c4, direct_maximum = direct_maximum + d.c5, direct_skipped = direct_skipped + d.skipped,
    liquid_minimum = liquid_minimum + l.c1, liquid_low = liquid_low + l.c2, liquid_medium = liquid_medium + l.c3,
    liquid_high = liquid_high + l.c4, liquid_maximum = liquid_maximum + l.c5, liquid_skipped = liquid_skipped + l.skipped
  WHERE id = p_choice;
END $$;

CREATE FUNCTION cast_first_pick(p_choice integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_interface text, p_os text, p_browser text, p_parent_url text, p_location text)
RETURNS TABLE (outcome text, vote question_choice_votes)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer;
  q record;
  blk record;
  at timestamptz;
  is_private boolean;
  weight integer;
  rep_choice integer;
  written question_choice_votes;
BEGIN
  SELECT c.question_id INTO qid FROM question_choices c WHERE c.id = p_choice;
  IF qid IS NULL THEN RETURN QUERY SELECT 'missing', NULL::question_choice_votes; RETURN; END IF;
  SELECT id, user_id, subtype, publish, start_at, end_at INTO q FROM questions WHERE id = qid FOR UPDATE;
  IF NOT FOUND OR NOT (q.publish OR q.user_id = p_user OR p_staff) THEN
    RETURN QUERY SELECT 'missing', NULL::question_choice_votes; RETURN;
  END IF;
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  -- From here on every statement sees the answers committed before the lock was granted.
  at := clock_timestamp();
  IF q.subtype <> 'mcq' THEN RETURN QUERY SELECT 'not_mcq', NULL::question_choice_votes; RETURN; END IF;
  IF q.start_at IS NOT NULL AND at < q.start_at THEN RETURN QUERY SELECT 'not_open', NULL::question_choice_votes; RETURN; END IF;
  IF q.end_at IS NOT NULL AND at >= q.end_at THEN RETURN QUERY SELECT 'closed', NULL::question_choice_votes; RETURN; END IF;
  IF p_collection IS NOT NULL AND NOT EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection) THEN
    RETURN QUERY SELECT 'collection', NULL::question_choice_votes; RETURN;
  END IF;
  IF EXISTS (SELECT FROM question_choice_votes v WHERE v.question_id = qid AND v.user_id = p_user) THEN
    RETURN QUERY SELECT 'general', NULL::question_choice_votes; RETURN;
  END IF;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  SELECT * INTO blk FROM liquid_block(qid, p_user);
  IF NOT is_private AND blk.intree > 0 THEN RETURN QUERY SELECT 'general', NULL::question_choice_votes; RETURN; END IF;
  weight := CASE WHEN NOT is_private AND blk.eligible THEN 1 + blk.intree ELSE 1 END;
  rep_choice := CASE WHEN blk.vote_table = 'question_choice_votes' THEN blk.target_id END;
  -- The choices locked in id order, as every writer locks them; the one picked may have gone since it was read.
  PERFORM FROM question_choices WHERE id IN (p_choice, rep_choice) ORDER BY id FOR UPDATE;
  IF NOT EXISTS (SELECT FROM question_choices WHERE id = p_choice AND question_id = qid) THEN
    RETURN QUERY SELECT 'missing', NULL::question_choice_votes; RETURN;
  END IF;

  INSERT INTO question_choice_votes (question_id, choice_id, user_id, value, skipped, private, liquid_weight, collection_id,
    analytics_interface, analytics_os, analytics_browser, analytics_parent_url, analytics_location, created_at, modified_at)
  VALUES (qid, p_choice, p_user, p_value, p_value IS NULL, is_private, weight, p_collection,
    p_interface, p_os, p_browser, p_parent_url, p_location, at, at)
  RETURNING * INTO written;

  -- The block leaves the representative it counted at without this answer (both choices are locked already).
  IF rep_choice IS NOT NULL THEN
    UPDATE question_choice_votes SET liquid_weight = liquid_weight - (1 + blk.intree) WHERE id = blk.vote_id;
    PERFORM move_choice_counts(rep_choice, CASE WHEN blk.skipped THEN NULL ELSE blk.value END, 0, -(1 + blk.intree));
  END IF;
  PERFORM move_choice_counts(p_choice, p_value, 1, weight);

  UPDATE users SET
    count_choice_votes = count_choice_votes + 1, count_votes = count_votes + 1,
    last_answer_time = greatest(last_answer_time, at),
    public_count_choice_votes = public_count_choice_votes + CASE WHEN is_private THEN 0 ELSE 1 END,
    public_count_votes = public_count_votes + CASE WHEN is_private THEN 0 ELSE 1 END,
    public_last_answer_time = CASE WHEN is_private THEN public_last_answer_time ELSE greatest(public_last_answer_time, at) END
  WHERE id = p_user;

  RETURN QUERY SELECT 'written', written;
END $$;
`,
  )
}
