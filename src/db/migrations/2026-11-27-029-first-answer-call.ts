import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * A first likert answer as one call, outside any transaction of the service's: the question's row is locked only
 * while the call runs inside the server, not across round trips. What src/modules/votes/answer-core.ts does for an
 * answer, step for step, in the same lock order (question, user, tags): the rules (the question visible to the
 * caller, likert, the window open, the collection named existing), the liquid block read after the lock, the answer
 * written with its weight, the representative it counted at without an answer losing the block, the question's
 * counts moved by deltas (its figures are generated from them, migration 028), the user's counters and the tags'
 * vote counts. Deltas need no figures computed here, which is what lets the whole answer be one call.
 *
 * Outcomes: 'written' with the answer; a refusal ('missing', 'mcq', 'not_open', 'closed', 'collection') having
 * written nothing; or, also having written nothing, 'general' where the service's general path must answer: the
 * caller already has an answer (it is replaced and kept in the history), or their public answer casts other
 * people's votes (the delegators are told, through the notification writer of the service).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION likert_count_deltas(p_value smallint, p_amount integer)
RETURNS TABLE (c1 integer, c2 integer, c3 integer, c4 integer, c5 integer, skipped integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN p_value = 1 THEN p_amount ELSE 0 END, CASE WHEN p_value = 2 THEN p_amount ELSE 0 END,
         CASE WHEN p_value = 3 THEN p_amount ELSE 0 END, CASE WHEN p_value = 4 THEN p_amount ELSE 0 END,
         CASE WHEN p_value = 5 THEN p_amount ELSE 0 END, CASE WHEN p_value IS NULL THEN p_amount ELSE 0 END
$$;

CREATE FUNCTION cast_first_likert(p_question integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_importance smallint, p_interface text, p_os text, p_browser text, p_parent_url text, p_location text)
RETURNS TABLE (outcome text, vote question_votes)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  q record;
  blk record;
  at timestamptz;
  is_private boolean;
  weight integer;
  written question_votes;
  direct record;
  liquid record;
  shifted record;
BEGIN
  SELECT id, user_id, subtype, publish, start_at, end_at INTO q FROM questions WHERE id = p_question FOR UPDATE;
  IF NOT FOUND OR NOT (q.publish OR q.user_id = p_user OR p_staff) THEN RETURN QUERY SELECT 'missing', NULL::question_votes; RETURN; END IF;
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  -- From here on every statement sees the answers committed before the lock was granted.
  at := clock_timestamp();
  IF q.subtype = 'mcq' THEN RETURN QUERY SELECT 'mcq', NULL::question_votes; RETURN; END IF;
  IF q.start_at IS NOT NULL AND at < q.start_at THEN RETURN QUERY SELECT 'not_open', NULL::question_votes; RETURN; END IF;
  IF q.end_at IS NOT NULL AND at >= q.end_at THEN RETURN QUERY SELECT 'closed', NULL::question_votes; RETURN; END IF;
  IF p_collection IS NOT NULL AND NOT EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection) THEN
    RETURN QUERY SELECT 'collection', NULL::question_votes; RETURN;
  END IF;
  IF EXISTS (SELECT FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user) THEN
    RETURN QUERY SELECT 'general', NULL::question_votes; RETURN;
  END IF;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  SELECT * INTO blk FROM liquid_block(p_question, p_user);
  IF NOT is_private AND p_value IS NOT NULL AND blk.intree > 0 THEN RETURN QUERY SELECT 'general', NULL::question_votes; RETURN; END IF;
  weight := CASE WHEN NOT is_private AND blk.eligible THEN 1 + blk.intree ELSE 1 END;

  INSERT INTO question_votes (question_id, user_id, value, skipped, private, liquid_weight, collection_id, importance,
    analytics_interface, analytics_os, analytics_browser, analytics_parent_url, analytics_location, created_at, modified_at)
  VALUES (p_question, p_user, p_value, p_value IS NULL, is_private, weight, p_collection, p_importance,
    p_interface, p_os, p_browser, p_parent_url, p_location, at, at)
  RETURNING * INTO written;

  SELECT * INTO direct FROM likert_count_deltas(p_value, 1);
  SELECT * INTO liquid FROM likert_count_deltas(p_value, weight);
  SELECT * INTO shifted FROM likert_count_deltas(NULL, 0);
  -- The block leaves the representative it counted at without this answer.
  IF blk.vote_table = 'question_votes' THEN
    UPDATE question_votes SET liquid_weight = liquid_weight - (1 + blk.intree) WHERE id = blk.vote_id;
    SELECT * INTO shifted FROM likert_count_deltas(CASE WHEN blk.skipped THEN NULL ELSE blk.value END, -(1 + blk.intree));
  END IF;
  UPDATE questions SET
    direct_minimum = direct_minimum + direct.c1, direct_low = direct_low + direct.c2, direct_medium = direct_medium + direct.c3,
    direct_high = direct_high + direct.c4, direct_maximum = direct_maximum + direct.c5, direct_skipped = direct_skipped + direct.skipped,
    liquid_minimum = liquid_minimum + liquid.c1 + shifted.c1, liquid_low = liquid_low + liquid.c2 + shifted.c2,
    liquid_medium = liquid_medium + liquid.c3 + shifted.c3, liquid_high = liquid_high + liquid.c4 + shifted.c4,
    liquid_maximum = liquid_maximum + liquid.c5 + shifted.c5, liquid_skipped = liquid_skipped + liquid.skipped + shifted.skipped
  WHERE id = p_question;

  UPDATE users SET
    count_question_votes = count_question_votes + 1, count_votes = count_votes + 1,
    last_answer_time = greatest(last_answer_time, at),
    public_count_question_votes = public_count_question_votes + CASE WHEN is_private THEN 0 ELSE 1 END,
    public_count_votes = public_count_votes + CASE WHEN is_private THEN 0 ELSE 1 END,
    public_last_answer_time = CASE WHEN is_private THEN public_last_answer_time ELSE greatest(public_last_answer_time, at) END
  WHERE id = p_user;

  UPDATE tags SET votes_count = votes_count + 1 WHERE id IN (
    SELECT t.id FROM tags t WHERE t.id IN (
      SELECT tag_id FROM question_tags WHERE question_id = p_question
      UNION SELECT topic_id FROM questions WHERE id = p_question AND topic_id IS NOT NULL)
    ORDER BY t.id FOR UPDATE);

  RETURN QUERY SELECT 'written', written;
END $$;
`,
  )
}
