import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Every answer write is one database call, with no second path (docs/database.md, "Answering"):
 *
 * - cast_likert and cast_pick lock the question first and then decide between a first answer and a replacement, so
 *   the first-answer functions of 029 and 030 go. An answer going private and a public answer carrying others'
 *   votes are written here too: the call returns `carried`, how many unanswered people's votes the answer casts or
 *   stopped casting, and the service tells their delegators from it. edit_answer takes an answer going private;
 *   withdraw_answer one carrying others' votes.
 * - The rules are written once: window_refusal (the voting window) is read by lock_answerable_question (the whole
 *   ladder a cast meets), edit_answer and withdraw_answer; count_user_answer keeps the user's counters for every kind
 *   of change; move_tag_votes moves the counts of the tags an answer counts in (question_tag_ids, migration 043).
 *
 * Refusal names are the ones src/modules/votes/vote-rules.ts maps to DRF messages; a test reads them back from here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(db, UP)
}

const UP = `
DROP FUNCTION cast_pick(integer, integer, boolean, smallint, boolean, integer, text, text, text, text, text);
DROP FUNCTION cast_likert(integer, integer, boolean, smallint, boolean, integer, smallint, boolean, text, text, text, text, text);
DROP FUNCTION cast_first_pick(integer, integer, boolean, smallint, boolean, integer, text, text, text, text, text);
DROP FUNCTION cast_first_likert(integer, integer, boolean, smallint, boolean, integer, smallint, text, text, text, text, text);
DROP FUNCTION withdraw_answer(boolean, integer);
DROP FUNCTION count_replaced_answer(integer, boolean, boolean, boolean, timestamptz);
-- The reads of the answer's second path, which is gone.
DROP FUNCTION answer_context(integer, integer, integer, text, integer);
DROP FUNCTION answer_locked(text, integer, boolean);
DROP FUNCTION lock_question_for_answers(integer);

-- The voting window [start_at, end_at) at p_at: NULL when open, else why not.
CREATE FUNCTION window_refusal(p_start timestamptz, p_end timestamptz, p_at timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_start IS NOT NULL AND p_at < p_start THEN 'not_open' WHEN p_end IS NOT NULL AND p_at >= p_end THEN 'closed' END
$$;

-- The question locked for an answer, with the rules a cast meets: NULL and the clock, or a refusal's name.
CREATE OR REPLACE FUNCTION lock_answerable_question(p_question integer, p_user integer, p_staff boolean, p_pick boolean,
  p_collection integer, OUT refusal text, OUT at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  q record;
BEGIN
  SELECT id, user_id, subtype, publish, start_at, end_at INTO q FROM questions WHERE id = p_question FOR UPDATE;
  IF NOT FOUND OR NOT (q.publish OR q.user_id = p_user OR p_staff) THEN refusal := 'missing'; RETURN; END IF;
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  -- From here on every statement sees the answers committed before the lock was granted.
  at := clock_timestamp();
  refusal := CASE
    WHEN p_pick AND q.subtype <> 'mcq' THEN 'not_mcq'
    WHEN NOT p_pick AND q.subtype = 'mcq' THEN 'mcq'
    ELSE window_refusal(q.start_at, q.end_at, at)
  END;
  IF refusal IS NULL AND p_collection IS NOT NULL AND NOT EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection) THEN
    refusal := 'collection';
  END IF;
END $$;

-- A user's counters after one of their answers changed; p_was and p_now are its privacy before and after (NULL: no
-- answer). When a latest time must be found again (an answer withdrawn, or one that stops being public), the row is
-- locked first, so that the search sees every answer committed before.
CREATE FUNCTION count_user_answer(p_user integer, p_pick boolean, p_was boolean, p_now boolean, p_at timestamptz)
RETURNS void LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  answers integer := (p_now IS NOT NULL)::integer - (p_was IS NOT NULL)::integer;
  shown integer := coalesce((NOT p_now)::integer, 0) - coalesce((NOT p_was)::integer, 0);
BEGIN
  IF p_now IS NULL OR (NOT p_was AND p_now) THEN
    PERFORM FROM users WHERE id = p_user FOR NO KEY UPDATE;
  END IF;
  UPDATE users SET
    count_question_votes = count_question_votes + CASE WHEN p_pick THEN 0 ELSE answers END,
    count_choice_votes = count_choice_votes + CASE WHEN p_pick THEN answers ELSE 0 END,
    count_votes = count_votes + answers,
    public_count_question_votes = public_count_question_votes + CASE WHEN p_pick THEN 0 ELSE shown END,
    public_count_choice_votes = public_count_choice_votes + CASE WHEN p_pick THEN shown ELSE 0 END,
    public_count_votes = public_count_votes + shown,
    last_answer_time = CASE WHEN p_now IS NOT NULL THEN greatest(last_answer_time, p_at) ELSE greatest(
      (SELECT max(modified_at) FROM question_votes WHERE user_id = p_user),
      (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = p_user)) END,
    public_last_answer_time = CASE
      WHEN NOT p_now THEN greatest(public_last_answer_time, p_at)
      WHEN NOT p_was THEN greatest(
        (SELECT max(modified_at) FROM question_votes WHERE user_id = p_user AND NOT private),
        (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = p_user AND NOT private))
      ELSE public_last_answer_time END
  WHERE id = p_user;
END $$;

-- Adds p_delta likert answers to every tag the question counts in, locking them in id order.
CREATE FUNCTION move_tag_votes(p_question integer, p_delta integer) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  UPDATE tags SET votes_count = votes_count + p_delta WHERE id IN (
    SELECT id FROM tags WHERE id IN (SELECT question_tag_ids(p_question)) ORDER BY id FOR NO KEY UPDATE);
END $$;

CREATE FUNCTION cast_likert(p_question integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_importance smallint, p_keep_importance boolean, p_interface text, p_os text, p_browser text,
  p_parent_url text, p_location text)
RETURNS TABLE (outcome text, carried integer, vote question_votes)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  rules record;
  held question_votes;
  blk record;
  is_private boolean;
  weight integer;
  written question_votes;
BEGIN
  SELECT * INTO rules FROM lock_answerable_question(p_question, p_user, p_staff, false, p_collection);
  IF rules.refusal IS NOT NULL THEN RETURN QUERY SELECT rules.refusal, 0, NULL::question_votes; RETURN; END IF;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  SELECT * INTO held FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user FOR UPDATE;

  IF held.id IS NULL THEN
    -- A first answer: its block (themselves and the unanswered people whose chains pass through them) leaves the
    -- representative it counted at, and counts here while the answer is public.
    SELECT * INTO blk FROM liquid_block(p_question, p_user);
    weight := CASE WHEN NOT is_private AND blk.eligible THEN 1 + blk.intree ELSE 1 END;
    INSERT INTO question_votes (question_id, user_id, value, skipped, private, liquid_weight, collection_id, importance,
      analytics_interface, analytics_os, analytics_browser, analytics_parent_url, analytics_location, created_at, modified_at)
    VALUES (p_question, p_user, p_value, p_value IS NULL, is_private, weight, p_collection, p_importance,
      p_interface, p_os, p_browser, p_parent_url, p_location, rules.at, rules.at)
    RETURNING * INTO written;
    IF blk.vote_table = 'question_votes' THEN
      UPDATE question_votes SET liquid_weight = liquid_weight - (1 + blk.intree) WHERE id = blk.vote_id;
    END IF;
    PERFORM move_likert_counts(p_question, p_value, 1, weight, CASE WHEN blk.skipped THEN NULL ELSE blk.value END, 0,
      CASE WHEN blk.vote_table = 'question_votes' THEN -(1 + blk.intree) ELSE 0 END);
    PERFORM count_user_answer(p_user, false, NULL, is_private, rules.at);
    PERFORM move_tag_votes(p_question, 1);
    RETURN QUERY SELECT 'written', CASE WHEN NOT is_private AND p_value IS NOT NULL THEN blk.intree ELSE 0 END, written;
    RETURN;
  END IF;

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
  PERFORM count_user_answer(p_user, false, held.private, is_private, rules.at);
  RETURN QUERY SELECT 'replaced', 0, written;
END $$;

CREATE FUNCTION cast_pick(p_choice integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_interface text, p_os text, p_browser text, p_parent_url text, p_location text)
RETURNS TABLE (outcome text, carried integer, vote question_choice_votes)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer;
  rules record;
  held question_choice_votes;
  blk record;
  rep_choice integer;
  is_private boolean;
  weight integer;
  written question_choice_votes;
BEGIN
  SELECT c.question_id INTO qid FROM question_choices c WHERE c.id = p_choice;
  IF qid IS NULL THEN RETURN QUERY SELECT 'missing', 0, NULL::question_choice_votes; RETURN; END IF;
  SELECT * INTO rules FROM lock_answerable_question(qid, p_user, p_staff, true, p_collection);
  IF rules.refusal IS NOT NULL THEN RETURN QUERY SELECT rules.refusal, 0, NULL::question_choice_votes; RETURN; END IF;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  SELECT * INTO held FROM question_choice_votes v WHERE v.question_id = qid AND v.user_id = p_user FOR UPDATE;
  IF held.id IS NULL THEN
    SELECT * INTO blk FROM liquid_block(qid, p_user);
    weight := CASE WHEN NOT is_private AND blk.eligible THEN 1 + blk.intree ELSE 1 END;
    rep_choice := CASE WHEN blk.vote_table = 'question_choice_votes' THEN blk.target_id END;
  ELSE
    weight := replaced_answer_weight(qid, p_user, held.private, held.liquid_weight, is_private);
    rep_choice := held.choice_id;
  END IF;
  -- The choices locked in id order, as every writer locks them; the one picked may have gone since it was read.
  PERFORM FROM question_choices WHERE id IN (p_choice, rep_choice) ORDER BY id FOR UPDATE;
  IF NOT EXISTS (SELECT FROM question_choices WHERE id = p_choice AND question_id = qid) THEN
    RETURN QUERY SELECT 'missing', 0, NULL::question_choice_votes; RETURN;
  END IF;

  IF held.id IS NULL THEN
    INSERT INTO question_choice_votes (question_id, choice_id, user_id, value, skipped, private, liquid_weight, collection_id,
      analytics_interface, analytics_os, analytics_browser, analytics_parent_url, analytics_location, created_at, modified_at)
    VALUES (qid, p_choice, p_user, p_value, p_value IS NULL, is_private, weight, p_collection,
      p_interface, p_os, p_browser, p_parent_url, p_location, rules.at, rules.at)
    RETURNING * INTO written;
    -- The block leaves the representative it counted at without this answer.
    IF rep_choice IS NOT NULL THEN
      UPDATE question_choice_votes SET liquid_weight = liquid_weight - (1 + blk.intree) WHERE id = blk.vote_id;
      PERFORM move_choice_counts(rep_choice, CASE WHEN blk.skipped THEN NULL ELSE blk.value END, 0, -(1 + blk.intree));
    END IF;
    PERFORM move_choice_counts(p_choice, p_value, 1, weight);
    PERFORM count_user_answer(p_user, true, NULL, is_private, rules.at);
    RETURN QUERY SELECT 'written', CASE WHEN NOT is_private THEN blk.intree ELSE 0 END, written;
    RETURN;
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
  PERFORM count_user_answer(p_user, true, held.private, is_private, rules.at);
  RETURN QUERY SELECT 'replaced', 0, written;
END $$;

CREATE OR REPLACE FUNCTION edit_answer(p_pick boolean, p_vote integer, p_set_value boolean, p_value smallint, p_unskip boolean,
  p_set_importance boolean, p_importance smallint, p_private boolean, p_set_collection boolean, p_collection integer)
RETURNS TABLE (outcome text, question integer, likert question_votes, pick question_choice_votes)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  held record;
  is_private boolean;
  weight integer;
  old_value smallint;
  new_value smallint;
  written_likert question_votes;
  written_pick question_choice_votes;
BEGIN
  SELECT * INTO held FROM lock_held_answer(p_pick, p_vote);
  IF held.id IS NULL THEN RETURN QUERY SELECT 'missing', NULL::integer, NULL::question_votes, NULL::question_choice_votes; RETURN; END IF;
  outcome := CASE
    WHEN NOT p_set_value AND p_unskip AND held.skipped THEN 'value_required'
    WHEN p_set_value THEN window_refusal(held.start_at, held.end_at, held.at)
  END;
  IF outcome IS NULL AND p_set_collection AND p_collection IS NOT NULL
     AND NOT EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection) THEN
    outcome := 'collection';
  END IF;
  IF outcome IS NOT NULL THEN
    RETURN QUERY SELECT outcome, held.question_id, NULL::question_votes, NULL::question_choice_votes; RETURN;
  END IF;
  is_private := coalesce(p_private, held.private);
  weight := replaced_answer_weight(held.question_id, held.user_id, held.private, held.liquid_weight, is_private);
  old_value := CASE WHEN held.skipped THEN NULL ELSE held.value END;
  new_value := CASE WHEN p_set_value THEN p_value ELSE old_value END;

  IF p_pick THEN
    PERFORM FROM question_choices WHERE id = held.target FOR UPDATE;
    IF p_set_value THEN
      INSERT INTO question_choice_vote_history (choice_id, question_id, user_id, value, skipped, private, answered_at, replaced_at)
      VALUES (held.target, held.question_id, held.user_id, held.value, held.skipped, held.private, held.modified_at, held.at);
    END IF;
    UPDATE question_choice_votes SET
      value = CASE WHEN p_set_value THEN p_value ELSE value END, skipped = CASE WHEN p_set_value THEN p_value IS NULL ELSE skipped END,
      private = is_private, collection_id = CASE WHEN p_set_collection THEN p_collection ELSE collection_id END,
      liquid_weight = weight, modified_at = held.at
    WHERE id = held.id
    RETURNING * INTO written_pick;
    IF p_set_value OR weight <> held.liquid_weight THEN
      PERFORM move_choice_counts(held.target, old_value, -1, -held.liquid_weight);
      PERFORM move_choice_counts(held.target, new_value, 1, weight);
    END IF;
  ELSE
    IF p_set_value THEN
      INSERT INTO question_vote_history (question_id, user_id, value, skipped, importance, private, answered_at, replaced_at)
      VALUES (held.question_id, held.user_id, held.value, held.skipped, held.importance, held.private, held.modified_at, held.at);
    END IF;
    UPDATE question_votes SET
      value = CASE WHEN p_set_value THEN p_value ELSE value END, skipped = CASE WHEN p_set_value THEN p_value IS NULL ELSE skipped END,
      importance = CASE WHEN p_set_importance THEN p_importance ELSE importance END,
      private = is_private, collection_id = CASE WHEN p_set_collection THEN p_collection ELSE collection_id END,
      liquid_weight = weight, modified_at = held.at
    WHERE id = held.id
    RETURNING * INTO written_likert;
    IF p_set_value OR weight <> held.liquid_weight THEN
      PERFORM move_likert_counts(held.question_id, old_value, -1, -held.liquid_weight, new_value, 1, weight);
    END IF;
  END IF;
  PERFORM count_user_answer(held.user_id, p_pick, held.private, is_private, held.at);
  RETURN QUERY SELECT 'edited', held.question_id, written_likert, written_pick;
END $$;

-- The answer to the history and its row away; its block joins the answer its own chain reaches now. carried: how
-- many unanswered people's votes a public answer cast, whose direct delegators the service tells.
CREATE FUNCTION withdraw_answer(p_pick boolean, p_vote integer, OUT outcome text, OUT question integer, OUT voter integer,
  OUT carried integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  qid integer;
  at timestamptz;
  held record;
  blk record;
  moved integer;
BEGIN
  carried := 0;
  SELECT * INTO held FROM lock_held_answer(p_pick, p_vote);
  IF held.id IS NULL THEN outcome := 'missing'; RETURN; END IF;
  qid := held.question_id;
  question := qid;
  voter := held.user_id;
  at := held.at;
  outcome := window_refusal(held.start_at, held.end_at, at);
  IF outcome IS NOT NULL THEN RETURN; END IF;
  SELECT * INTO blk FROM liquid_block(qid, held.user_id);
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
  PERFORM count_user_answer(held.user_id, p_pick, held.private, NULL, at);
  IF NOT p_pick THEN PERFORM move_tag_votes(qid, -1); END IF;
  carried := CASE WHEN held.private THEN 0 ELSE blk.intree END;
  outcome := 'withdrawn';
END $$;
`

export async function down(): Promise<void> {
  throw new Error('2026-11-28-044-one-answer-path cannot be undone: restore a backup taken before it')
}
