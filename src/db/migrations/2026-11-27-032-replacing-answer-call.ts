import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * An answer as one call, first or not (cast_likert, cast_pick): the clients change an answer by sending it again, so a
 * replacement is what a survey sends most after a first answer. A first answer goes on to cast_first_likert or
 * cast_first_pick (migrations 029 and 030); a replacement does what src/modules/votes/answer-core.ts does for one, in
 * the same lock order (the question, then for a pick its choices in id order, then the user): the rules, the answer
 * kept in the history and overwritten, its counts moved from the old level (or choice) to the new by deltas, and the
 * user's public counters. The weight stays what it was unless the answer goes public (the block is read then); an
 * answer that goes private answers 'general', writing nothing: its author's latest public answer must be found again,
 * which the general path does. A replacement tells nobody and moves no one's block.
 *
 * Outcomes: 'written' (a first answer), 'replaced', a refusal as in migration 029, or 'general'.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
-- The question locked for an answer, with the rules a replacement meets: NULL and the clock, or a refusal's name.
CREATE FUNCTION lock_answerable_question(p_question integer, p_user integer, p_staff boolean, p_pick boolean, p_collection integer,
  OUT refusal text, OUT at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  q record;
BEGIN
  SELECT id, user_id, subtype, publish, start_at, end_at INTO q FROM questions WHERE id = p_question FOR UPDATE;
  IF NOT FOUND OR NOT (q.publish OR q.user_id = p_user OR p_staff) THEN refusal := 'missing'; RETURN; END IF;
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  -- From here on every statement sees the answers committed before the lock was granted.
  at := clock_timestamp();
  IF p_pick AND q.subtype <> 'mcq' THEN refusal := 'not_mcq';
  ELSIF NOT p_pick AND q.subtype = 'mcq' THEN refusal := 'mcq';
  ELSIF q.start_at IS NOT NULL AND at < q.start_at THEN refusal := 'not_open';
  ELSIF q.end_at IS NOT NULL AND at >= q.end_at THEN refusal := 'closed';
  ELSIF p_collection IS NOT NULL AND NOT EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection) THEN refusal := 'collection';
  END IF;
END $$;

-- A question's counts moved in one update: p_direct_a answers and p_liquid_a weight at level p_a (NULL: a skip), and
-- the same at p_b (an answer that leaves one level for another, or a block that leaves one answer for another).
CREATE FUNCTION move_likert_counts(p_question integer, p_a smallint, p_direct_a integer, p_liquid_a integer,
  p_b smallint, p_direct_b integer, p_liquid_b integer)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  da record;
  db record;
  la record;
  lb record;
BEGIN
  SELECT * INTO da FROM likert_count_deltas(p_a, p_direct_a);
  SELECT * INTO db FROM likert_count_deltas(p_b, p_direct_b);
  SELECT * INTO la FROM likert_count_deltas(p_a, p_liquid_a);
  SELECT * INTO lb FROM likert_count_deltas(p_b, p_liquid_b);
  UPDATE questions SET
    direct_minimum = direct_minimum + da.c1 + db.c1, direct_low = direct_low + da.c2 + db.c2,
    direct_medium = direct_medium + da.c3 + db.c3, direct_high = direct_high + da.c4 + db.c4,
    direct_maximum = direct_maximum + da.c5 + db.c5, direct_skipped = direct_skipped + da.skipped + db.skipped,
    liquid_minimum = liquid_minimum + la.c1 + lb.c1, liquid_low = liquid_low + la.c2 + lb.c2,
    liquid_medium = liquid_medium + la.c3 + lb.c3, liquid_high = liquid_high + la.c4 + lb.c4,
    liquid_maximum = liquid_maximum + la.c5 + lb.c5, liquid_skipped = liquid_skipped + la.skipped + lb.skipped
  WHERE id = p_question;
END $$;

-- A replaced answer's weight: unchanged while its privacy is, 1 once private, its block once public.
CREATE FUNCTION replaced_answer_weight(p_question integer, p_user integer, p_was_private boolean, p_weight integer, p_private boolean)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  blk record;
BEGIN
  IF p_private = p_was_private THEN RETURN p_weight; END IF;
  IF p_private THEN RETURN 1; END IF;
  SELECT * INTO blk FROM liquid_block(p_question, p_user);
  RETURN CASE WHEN blk.eligible THEN 1 + blk.intree ELSE 1 END;
END $$;

-- The user's counters after one of their answers was replaced (never public to private: the general path's).
CREATE FUNCTION count_replaced_answer(p_user integer, p_pick boolean, p_was_private boolean, p_private boolean, p_at timestamptz)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  gained integer := CASE WHEN p_was_private AND NOT p_private THEN 1 ELSE 0 END;
BEGIN
  UPDATE users SET
    last_answer_time = greatest(last_answer_time, p_at),
    public_count_question_votes = public_count_question_votes + CASE WHEN p_pick THEN 0 ELSE gained END,
    public_count_choice_votes = public_count_choice_votes + CASE WHEN p_pick THEN gained ELSE 0 END,
    public_count_votes = public_count_votes + gained,
    public_last_answer_time = CASE WHEN p_private THEN public_last_answer_time ELSE greatest(public_last_answer_time, p_at) END
  WHERE id = p_user;
END $$;

CREATE FUNCTION cast_likert(p_question integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_importance smallint, p_keep_importance boolean, p_interface text, p_os text, p_browser text,
  p_parent_url text, p_location text)
RETURNS TABLE (outcome text, vote question_votes)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  rules record;
  held question_votes;
  is_private boolean;
  weight integer;
  written question_votes;
BEGIN
  IF NOT EXISTS (SELECT FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user) THEN
    RETURN QUERY SELECT * FROM cast_first_likert(p_question, p_user, p_staff, p_value, p_private, p_collection, p_importance,
      p_interface, p_os, p_browser, p_parent_url, p_location);
    RETURN;
  END IF;
  SELECT * INTO rules FROM lock_answerable_question(p_question, p_user, p_staff, false, p_collection);
  IF rules.refusal IS NOT NULL THEN RETURN QUERY SELECT rules.refusal, NULL::question_votes; RETURN; END IF;
  SELECT * INTO held FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user FOR UPDATE;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  IF held.id IS NULL OR (is_private AND NOT held.private) THEN RETURN QUERY SELECT 'general', NULL::question_votes; RETURN; END IF;
  weight := replaced_answer_weight(p_question, p_user, held.private, held.liquid_weight, is_private);

  INSERT INTO question_vote_history (question_id, user_id, value, skipped, importance, private, answered_at, replaced_at)
  VALUES (held.question_id, held.user_id, held.value, held.skipped, held.importance, held.private, held.modified_at, rules.at);
  UPDATE question_votes SET value = p_value, skipped = p_value IS NULL, private = is_private, liquid_weight = weight,
    collection_id = p_collection, importance = CASE WHEN p_keep_importance THEN importance ELSE p_importance END,
    analytics_interface = p_interface, analytics_os = p_os, analytics_browser = p_browser,
    analytics_parent_url = p_parent_url, analytics_location = p_location, modified_at = rules.at
  WHERE id = held.id
  RETURNING * INTO written;

  PERFORM move_likert_counts(p_question, CASE WHEN held.skipped THEN NULL ELSE held.value END, -1, -held.liquid_weight,
    p_value, 1, weight);
  PERFORM count_replaced_answer(p_user, false, held.private, is_private, rules.at);
  RETURN QUERY SELECT 'replaced', written;
END $$;

CREATE FUNCTION cast_pick(p_choice integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_interface text, p_os text, p_browser text, p_parent_url text, p_location text)
RETURNS TABLE (outcome text, vote question_choice_votes)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer;
  rules record;
  held question_choice_votes;
  is_private boolean;
  weight integer;
  written question_choice_votes;
BEGIN
  SELECT c.question_id INTO qid FROM question_choices c WHERE c.id = p_choice;
  IF qid IS NULL OR NOT EXISTS (SELECT FROM question_choice_votes v WHERE v.question_id = qid AND v.user_id = p_user) THEN
    RETURN QUERY SELECT * FROM cast_first_pick(p_choice, p_user, p_staff, p_value, p_private, p_collection,
      p_interface, p_os, p_browser, p_parent_url, p_location);
    RETURN;
  END IF;
  SELECT * INTO rules FROM lock_answerable_question(qid, p_user, p_staff, true, p_collection);
  IF rules.refusal IS NOT NULL THEN RETURN QUERY SELECT rules.refusal, NULL::question_choice_votes; RETURN; END IF;
  SELECT * INTO held FROM question_choice_votes v WHERE v.question_id = qid AND v.user_id = p_user FOR UPDATE;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  IF held.id IS NULL OR (is_private AND NOT held.private) THEN RETURN QUERY SELECT 'general', NULL::question_choice_votes; RETURN; END IF;
  weight := replaced_answer_weight(qid, p_user, held.private, held.liquid_weight, is_private);
  -- The two choices locked in id order, as every writer locks them; the one picked may have gone since it was read.
  PERFORM FROM question_choices WHERE id IN (p_choice, held.choice_id) ORDER BY id FOR UPDATE;
  IF NOT EXISTS (SELECT FROM question_choices WHERE id = p_choice AND question_id = qid) THEN
    RETURN QUERY SELECT 'missing', NULL::question_choice_votes; RETURN;
  END IF;

  INSERT INTO question_choice_vote_history (choice_id, question_id, user_id, value, skipped, private, answered_at, replaced_at)
  VALUES (held.choice_id, held.question_id, held.user_id, held.value, held.skipped, held.private, held.modified_at, rules.at);
  UPDATE question_choice_votes SET choice_id = p_choice, value = p_value, skipped = p_value IS NULL, private = is_private,
    liquid_weight = weight, collection_id = p_collection,
    analytics_interface = p_interface, analytics_os = p_os, analytics_browser = p_browser,
    analytics_parent_url = p_parent_url, analytics_location = p_location, modified_at = rules.at
  WHERE id = held.id
  RETURNING * INTO written;

  PERFORM move_choice_counts(held.choice_id, CASE WHEN held.skipped THEN NULL ELSE held.value END, -1, -held.liquid_weight);
  PERFORM move_choice_counts(p_choice, p_value, 1, weight);
  PERFORM count_replaced_answer(p_user, true, held.private, is_private, rules.at);
  RETURN QUERY SELECT 'replaced', written;
END $$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP FUNCTION cast_pick(integer, integer, boolean, smallint, boolean, integer, text, text, text, text, text);
DROP FUNCTION cast_likert(integer, integer, boolean, smallint, boolean, integer, smallint, boolean, text, text, text, text, text);
DROP FUNCTION count_replaced_answer(integer, boolean, boolean, boolean, timestamptz);
DROP FUNCTION replaced_answer_weight(integer, integer, boolean, integer, boolean);
DROP FUNCTION lock_answerable_question(integer, integer, boolean, boolean, integer);
DROP FUNCTION move_likert_counts(integer, smallint, integer, integer, smallint, integer, integer);
`,
  )
}
