import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * An edit of an answer (PATCH) as one call (edit_answer), as migrations 032 and 033 do for replacements and
 * withdrawals: what editAnswer of src/modules/votes/answer-edit.ts does, in the same lock order (the question, the
 * answer, for a pick its choice, the user). Each p_set_* says whether the body named that field. A new value or skip
 * keeps the old answer in the history, inside the voting window only; privacy, importance and collection change at
 * any time. The counts move from the old level to the new, with the weight the answer carries now (going public
 * reads the block). An edit tells nobody.
 *
 * Outcomes, with the question and the row as edited (likert or pick): 'edited'; 'missing'; 'value_required' (un-skipping
 * without a value); 'not_open' or 'closed' (a new value outside the window); 'collection' (no such collection); or,
 * having written nothing, 'general' for an answer going private: its author's latest public answer is found again
 * on the general path.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION edit_answer(p_pick boolean, p_vote integer, p_set_value boolean, p_value smallint, p_unskip boolean,
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
    WHEN p_set_value AND held.start_at IS NOT NULL AND held.at < held.start_at THEN 'not_open'
    WHEN p_set_value AND held.end_at IS NOT NULL AND held.at >= held.end_at THEN 'closed'
    WHEN p_set_collection AND p_collection IS NOT NULL AND NOT EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection)
      THEN 'collection'
    WHEN NOT held.private AND coalesce(p_private, held.private) THEN 'general'
  END;
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
  PERFORM count_replaced_answer(held.user_id, p_pick, held.private, is_private, held.at);
  RETURN QUERY SELECT 'edited', held.question_id, written_likert, written_pick;
END $$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `DROP FUNCTION edit_answer(boolean, integer, boolean, smallint, boolean, boolean, smallint, boolean, boolean, integer);`,
  )
}
