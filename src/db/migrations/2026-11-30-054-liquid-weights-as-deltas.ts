import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/** Tables without a change notice, as the figure deltas: the answer that writes a delta announces itself. */
export const LIQUID_DELTA_TABLES_WITHOUT_NOTICE = ['liquid_weight_deltas', 'liquid_block_deltas'] as const

/** A block of one leaves no answer and kept size behind: nobody's vote passes through the voter, theirs goes nowhere. */
const BLOCK_OF_ONE = `SELECT 0 AS intree, true AS eligible, NULL::text AS vote_table, NULL::integer AS vote_id,
      NULL::integer AS target_id, NULL::smallint AS value, NULL::boolean AS skipped INTO blk;`

/**
 * The block a cast moves, by how far the answer reaches (lock_answer_reach): a leaf's from its one walk, anyone
 * else's first answer from liquid_block, otherwise a block of one. The same in both casts but for the question and
 * the answer table.
 */
const chooseBlock = (question: string, pick: boolean) => `IF reach = 'chain' THEN
    SELECT * INTO leaf FROM liquid_leaf_block(${question}, p_user, ${pick});
    SELECT 0 AS intree, liquid_eligible(p_user) AS eligible, leaf.vote_table, leaf.vote_id, leaf.target_id, leaf.value,
      leaf.skipped INTO blk;
  ELSIF reach <> 'own' AND held.id IS NULL THEN
    SELECT * INTO blk FROM liquid_block(${question}, p_user);
  ELSE
    ${BLOCK_OF_ONE}
  END IF;`
/** Around a leaf's insert: the answer trigger leaves the kept sizes to the call, which appends their deltas. */
const BEFORE_LEAF_INSERT = `IF reach = 'chain' THEN PERFORM set_config('civic.liquid_chain', 'on', true); END IF;`
const afterLeafInsert = (question: string) => `IF reach = 'chain' THEN
      PERFORM liquid_blocks_follow(${question}, p_user, leaf.path, leaf.looped, -1);
      PERFORM set_config('civic.liquid_chain', '', true);
    END IF;`

/** The kept sizes fold_liquid_deltas adds deltas to, locked in key order: waiting for them, or skipping those held. */
const keptRows = (skip: string) => `SELECT array_agg(k) INTO keys FROM (
      SELECT (b.question_id::bigint << 32) | b.user_id AS k FROM liquid_blocks b
      WHERE (b.question_id, b.user_id) IN (SELECT d.question_id, d.user_id FROM liquid_block_deltas d
        WHERE p_questions IS NULL OR d.question_id = ANY(p_questions))
      ORDER BY b.question_id, b.user_id FOR NO KEY UPDATE${skip}) AS l;`
/** The same for the answers of one table that weight deltas name. */
const voteRows = (table: string, pick: boolean, into: string, skip: string) => `SELECT array_agg(id) INTO ${into} FROM (
      SELECT v.id FROM ${table} v WHERE v.id IN (SELECT d.vote_id FROM liquid_weight_deltas d
        WHERE d.pick = ${pick} AND (p_questions IS NULL OR d.question_id = ANY(p_questions)))
      ORDER BY v.id FOR NO KEY UPDATE${skip}) AS l;`

/**
 * A representative's liquid weight and the kept block sizes no longer queue the people who delegate to them. Before,
 * every first answer on a delegation chain took the question's serial lock exclusively and moved the weight of the
 * answer its chain reaches (and the kept sizes on the way) in place, so a trustee's delegators answering at once ran
 * one at a time on that row.
 *
 * - A first public answer by someone nobody delegates to (a leaf: no delegation names them, nothing of theirs waits
 *   for release) holds that lock shared: leaves never lie on each other's chains, so what each reads (its chain,
 *   the answers on it, its own block of one) no other leaf changes. What it moves beyond its own rows it appends:
 *   the weight it takes from the answer its chain reaches (liquid_weight_deltas), the kept sizes it leaves
 *   (liquid_block_deltas), the counts (question_figure_deltas, as before). It walks its chain once
 *   (liquid_leaf_block) and moves the kept sizes itself, so the answer trigger leaves them: 1.8 → 0.44 ms of server
 *   time a delegator's first answer (2,000 in one transaction, a trustee of 64,000 kept, demo seed).
 * - Every other answer that reaches others still holds it exclusively, so it waits for the leaves in flight. A
 *   transaction holding it shared (a group with a leaf in it) that must hold it exclusively and cannot at once gives
 *   up (55P03), and its answers are cast again one by one, rather than wait for a group doing the same.
 * - Readers add the tail: current_answer, liquid_block and liquid_intree read a weight or a kept size plus its
 *   deltas, in one snapshot. A writer that sets a weight outright claims its row's deltas first; whoever closes a
 *   question's gate folds them (lock_question_answers), and the serving processes fold them with the counts.
 * Signatures of every existing function unchanged; two tables and five functions new (expand only). The previous
 * release's `check` reads weights and kept sizes without the deltas (docs/operations.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE TABLE liquid_weight_deltas (question_id integer NOT NULL, pick boolean NOT NULL, vote_id integer NOT NULL,
  delta integer NOT NULL);
CREATE INDEX liquid_weight_deltas_vote ON liquid_weight_deltas (question_id, vote_id);
CREATE TABLE liquid_block_deltas (question_id integer NOT NULL, user_id integer NOT NULL, delta integer NOT NULL);
CREATE INDEX liquid_block_deltas_block ON liquid_block_deltas (question_id, user_id);
ALTER TABLE liquid_weight_deltas SET (vacuum_truncate = false);
ALTER TABLE liquid_block_deltas SET (vacuum_truncate = false);

CREATE OR REPLACE FUNCTION pending_liquid_weight(p_question integer, p_pick boolean, p_vote integer) RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(d.delta), 0)::integer FROM liquid_weight_deltas d
  WHERE d.question_id = p_question AND d.vote_id = p_vote AND d.pick = p_pick
$$;

CREATE OR REPLACE FUNCTION claim_liquid_weight(p_question integer, p_pick boolean, p_vote integer) RETURNS integer
LANGUAGE sql AS $$
  WITH gone AS (DELETE FROM liquid_weight_deltas d
    WHERE d.question_id = p_question AND d.vote_id = p_vote AND d.pick = p_pick RETURNING d.delta)
  SELECT coalesce(sum(delta), 0)::integer FROM gone
$$;

CREATE OR REPLACE FUNCTION fold_liquid_deltas(p_questions integer[], p_wait boolean) RETURNS integer
LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' AS $$
DECLARE
  likert integer[];
  picks integer[];
  keys bigint[];
  moved integer;
  folded integer := 0;
  announcing text := current_setting('civic.notices_after_commit', true);
BEGIN
  IF NOT EXISTS (SELECT FROM liquid_weight_deltas) AND NOT EXISTS (SELECT FROM liquid_block_deltas) THEN RETURN 0; END IF;
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  IF p_wait THEN
    ${voteRows('question_votes', false, 'likert', '')}
    ${voteRows('question_choice_votes', true, 'picks', '')}
    ${keptRows('')}
  ELSE
    ${voteRows('question_votes', false, 'likert', ' SKIP LOCKED')}
    ${voteRows('question_choice_votes', true, 'picks', ' SKIP LOCKED')}
    ${keptRows(' SKIP LOCKED')}
  END IF;
  WITH gone AS (DELETE FROM liquid_weight_deltas d
      WHERE (NOT d.pick AND d.vote_id = ANY(likert)) OR (d.pick AND d.vote_id = ANY(picks)) RETURNING d.pick, d.vote_id, d.delta),
    sums AS (SELECT pick, vote_id, count(*) AS n, sum(delta)::integer AS delta FROM gone GROUP BY pick, vote_id),
    on_likert AS (UPDATE question_votes v SET liquid_weight = v.liquid_weight + s.delta FROM sums s WHERE NOT s.pick AND v.id = s.vote_id),
    on_picks AS (UPDATE question_choice_votes v SET liquid_weight = v.liquid_weight + s.delta FROM sums s WHERE s.pick AND v.id = s.vote_id)
  SELECT coalesce(sum(n), 0) INTO moved FROM sums;
  folded := folded + moved;
  WITH gone AS (DELETE FROM liquid_block_deltas d WHERE ((d.question_id::bigint << 32) | d.user_id) = ANY(keys)
      RETURNING d.question_id, d.user_id, d.delta),
    sums AS (SELECT question_id, user_id, count(*) AS n, sum(delta)::integer AS delta FROM gone GROUP BY question_id, user_id),
    on_kept AS (UPDATE liquid_blocks b SET intree = b.intree + s.delta FROM sums s
      WHERE b.question_id = s.question_id AND b.user_id = s.user_id)
  SELECT coalesce(sum(n), 0) INTO moved FROM sums;
  folded := folded + moved;
  -- Deltas whose answer or kept size is gone (a withdrawal folds first; a chain that loops drops its kept sizes).
  DELETE FROM liquid_weight_deltas d WHERE (p_questions IS NULL OR d.question_id = ANY(p_questions))
    AND NOT EXISTS (SELECT FROM question_votes v WHERE NOT d.pick AND v.id = d.vote_id)
    AND NOT EXISTS (SELECT FROM question_choice_votes v WHERE d.pick AND v.id = d.vote_id);
  DELETE FROM liquid_block_deltas d WHERE (p_questions IS NULL OR d.question_id = ANY(p_questions))
    AND NOT EXISTS (SELECT FROM liquid_blocks b WHERE b.question_id = d.question_id AND b.user_id = d.user_id);
  PERFORM set_config('civic.notices_after_commit', coalesce(announcing, ''), true);
  RETURN folded;
END $$;

CREATE OR REPLACE FUNCTION lock_question_answers(p_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  qid integer;
  every boolean := p_ids IS NULL OR cardinality(p_ids) > 64;
BEGIN
  IF every THEN
    PERFORM pg_advisory_xact_lock(4701, 0);
  ELSE
    PERFORM pg_advisory_xact_lock_shared(4701, 0);
    FOR qid IN SELECT DISTINCT i FROM unnest(p_ids) AS i WHERE i IS NOT NULL ORDER BY i LOOP
      PERFORM pg_advisory_xact_lock(4701, qid);
    END LOOP;
  END IF;
  -- No answer is in flight now: the weights and kept sizes its writer reads and sets are whole.
  PERFORM fold_liquid_deltas(CASE WHEN every THEN NULL ELSE p_ids END, true);
END $$;

CREATE OR REPLACE FUNCTION lock_answer_reach(p_question integer, p_user integer, p_private boolean, p_was_private boolean,
  p_weight integer) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  reach text;
  inward boolean;
  touched boolean;
BEGIN
  IF p_weight IS NULL AND NOT p_private THEN
    SELECT count(*) > 0, coalesce(bool_or(t.inward), false) INTO touched, inward FROM (
      (SELECT true AS inward FROM unreleased_answers u WHERE u.question_id = p_question AND u.user_id = p_user LIMIT 1)
      UNION ALL (SELECT true FROM tag_delegations d WHERE d.trustee_id = p_user AND d.revoked_at IS NULL LIMIT 1)
      UNION ALL (SELECT true FROM question_delegations d
        WHERE d.question_id = p_question AND d.trustee_id = p_user AND d.revoked_at IS NULL LIMIT 1)
      UNION ALL (SELECT false FROM tag_delegations d WHERE d.user_id = p_user AND d.revoked_at IS NULL LIMIT 1)
      UNION ALL (SELECT false FROM question_delegations d WHERE d.user_id = p_user AND d.revoked_at IS NULL LIMIT 1)
    ) AS t;
    IF NOT touched THEN RETURN 'own'; END IF;
    IF NOT inward THEN reach := 'chain'; END IF;
  END IF;
  reach := coalesce(reach, CASE WHEN answer_reaches_others(p_question, p_user, p_private, p_was_private, p_weight)
    THEN 'serial' ELSE 'own' END);
  IF reach = 'chain' THEN
    PERFORM pg_advisory_xact_lock_shared(4702, p_question);
    PERFORM set_config('civic.liquid_shared', coalesce(nullif(current_setting('civic.liquid_shared', true), ''), ',') || p_question || ',', true);
  ELSIF reach = 'serial' THEN
    IF coalesce(current_setting('civic.liquid_shared', true), '') LIKE '%,' || p_question || ',%' THEN
      IF NOT pg_try_advisory_xact_lock(4702, p_question) THEN
        RAISE EXCEPTION 'an answer to question % waits for others while its transaction holds their way', p_question
          USING ERRCODE = 'lock_not_available';
      END IF;
    ELSE
      PERFORM pg_advisory_xact_lock(4702, p_question);
    END IF;
  END IF;
  RETURN reach;
END $$;

CREATE OR REPLACE FUNCTION current_answer(p_question integer, p_user integer)
RETURNS TABLE(choice_id integer, value smallint, private boolean, liquid_weight integer) LANGUAGE sql STABLE AS $$
  SELECT NULL::integer, v.value, v.private, v.liquid_weight + pending_liquid_weight(v.question_id, false, v.id)
  FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user
  UNION ALL
  SELECT v.choice_id, v.value, v.private, v.liquid_weight + pending_liquid_weight(v.question_id, true, v.id) FROM question_choice_votes v
  WHERE v.question_id = p_question AND v.user_id = p_user
$$;

CREATE OR REPLACE FUNCTION liquid_block(p_question integer, p_user integer)
RETURNS TABLE(intree integer, eligible boolean, question_id integer, carries boolean, vote_table text, vote_id integer,
  target_id integer, value smallint, skipped boolean, weight integer) LANGUAGE sql STABLE AS $$
  SELECT liquid_intree(p_question, p_user), liquid_eligible(p_user), p_question, NULL::boolean,
         a.vote_table, a.vote_id, a.target_id, a.value, a.skipped, a.weight
  FROM (SELECT liquid_representative(p_question, p_user) AS holder) AS r
  LEFT JOIN LATERAL (
    SELECT 'question_votes' AS vote_table, v.id AS vote_id, v.question_id AS target_id, v.value, v.skipped,
      v.liquid_weight + pending_liquid_weight(v.question_id, false, v.id) AS weight
    FROM question_votes v WHERE v.question_id = p_question AND v.user_id = r.holder
    UNION ALL
    SELECT 'question_choice_votes', v.id, v.choice_id, v.value, v.skipped, v.liquid_weight + pending_liquid_weight(v.question_id, true, v.id)
    FROM question_choice_votes v WHERE v.question_id = p_question AND v.user_id = r.holder
  ) AS a ON true
$$;

CREATE OR REPLACE FUNCTION liquid_intree(p_question integer, p_user integer) RETURNS integer
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT b.intree + coalesce((SELECT sum(d.delta) FROM liquid_block_deltas d
                     WHERE d.question_id = p_question AND d.user_id = p_user), 0)::integer
                   FROM liquid_blocks b WHERE b.question_id = p_question AND b.user_id = p_user),
                  liquid_intree_walk(p_question, p_user));
END
$$;

CREATE OR REPLACE FUNCTION liquid_leaf_block(p_question integer, p_user integer, p_pick boolean, OUT path integer[],
  OUT looped boolean, OUT vote_table text, OUT vote_id integer, OUT target_id integer, OUT value smallint, OUT skipped boolean)
RETURNS record LANGUAGE plpgsql STABLE AS $$
DECLARE
  holder integer;
BEGIN
  -- Nobody's chain passes through a leaf: its block is itself, and its chain, walked once, says the rest.
  SELECT c.path, c.looped, c.holder INTO path, looped, holder FROM liquid_chain(p_question, p_user) AS c;
  IF holder IS NULL THEN RETURN; END IF;
  IF p_pick THEN
    SELECT 'question_choice_votes', v.id, v.choice_id, v.value, v.skipped INTO vote_table, vote_id, target_id, value, skipped
    FROM question_choice_votes v WHERE v.question_id = p_question AND v.user_id = holder;
  ELSE
    SELECT 'question_votes', v.id, v.question_id, v.value, v.skipped INTO vote_table, vote_id, target_id, value, skipped
    FROM question_votes v WHERE v.question_id = p_question AND v.user_id = holder;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION liquid_blocks_on_answer() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  q integer := CASE WHEN TG_OP = 'INSERT' THEN NEW.question_id ELSE OLD.question_id END;
  u integer := CASE WHEN TG_OP = 'INSERT' THEN NEW.user_id ELSE OLD.user_id END;
  chain record;
BEGIN
  -- A leaf's answer call moves them itself, with the chain it walked already.
  IF current_setting('civic.liquid_chain', true) = 'on' THEN RETURN NULL; END IF;
  IF EXISTS (SELECT FROM liquid_blocks WHERE question_id = q) THEN
    SELECT * INTO chain FROM liquid_chain(q, u);
    PERFORM liquid_blocks_follow(q, u, chain.path, chain.looped, CASE WHEN TG_OP = 'INSERT' THEN -1 ELSE 1 END);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION liquid_blocks_follow(p_question integer, p_user integer, p_path integer[], p_looped boolean,
  p_sign integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  amount integer;
BEGIN
  IF cardinality(p_path) = 0
     OR NOT EXISTS (SELECT FROM liquid_blocks WHERE question_id = p_question AND user_id = ANY(p_path)) THEN
    RETURN;
  END IF;
  IF p_looped THEN
    DELETE FROM liquid_blocks WHERE question_id = p_question AND user_id = ANY(p_path);
    RETURN;
  END IF;
  amount := p_sign * (1 + liquid_intree(p_question, p_user));
  IF current_setting('civic.liquid_chain', true) = 'on' THEN
    -- A leaf's answer: other leaves move the same sizes at the same time.
    INSERT INTO liquid_block_deltas (question_id, user_id, delta)
    SELECT p_question, b.user_id, amount FROM liquid_blocks b WHERE b.question_id = p_question AND b.user_id = ANY(p_path);
  ELSE
    UPDATE liquid_blocks SET intree = intree + amount WHERE question_id = p_question AND user_id = ANY(p_path);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION cast_likert(p_question integer, p_user integer, p_staff boolean, p_value smallint,
  p_private boolean, p_collection integer, p_importance smallint, p_keep_importance boolean, p_interface text, p_os text,
  p_browser text, p_parent_url text, p_location text) RETURNS TABLE(outcome text, carried integer, vote question_votes)
LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' AS $$
DECLARE
  rules record;
  held question_votes;
  blk record;
  leaf record;
  reach text;
  is_private boolean;
  weight integer;
  written question_votes;
BEGIN
  SELECT * INTO rules FROM lock_answerable_question(p_question, p_user, p_staff, false, p_collection);
  IF rules.refusal IS NOT NULL THEN RETURN QUERY SELECT rules.refusal, 0, NULL::question_votes; RETURN; END IF;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  SELECT * INTO held FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user FOR UPDATE;
  reach := lock_answer_reach(p_question, p_user, is_private, held.private, held.liquid_weight);
  ${chooseBlock('p_question', false)}

  IF held.id IS NULL THEN
    -- A first answer: its block (themselves and the unanswered people whose chains pass through them) leaves the
    -- representative it counted at, and counts here while the answer is public.
    weight := CASE WHEN NOT is_private AND blk.eligible THEN 1 + blk.intree ELSE 1 END;
    ${BEFORE_LEAF_INSERT}
    INSERT INTO question_votes (question_id, user_id, value, skipped, private, liquid_weight, collection_id, importance,
      analytics_interface, analytics_os, analytics_browser, analytics_parent_url, analytics_location, created_at, modified_at)
    VALUES (p_question, p_user, p_value, p_value IS NULL, is_private, weight, p_collection, p_importance,
      p_interface, p_os, p_browser, p_parent_url, p_location, rules.at, rules.at)
    RETURNING * INTO written;
    ${afterLeafInsert('p_question')}
    IF blk.vote_table = 'question_votes' THEN
      IF reach = 'chain' THEN
        INSERT INTO liquid_weight_deltas (question_id, pick, vote_id, delta) VALUES (p_question, false, blk.vote_id, -(1 + blk.intree));
      ELSE
        UPDATE question_votes SET liquid_weight = liquid_weight - (1 + blk.intree) WHERE id = blk.vote_id;
      END IF;
    END IF;
    PERFORM move_likert_counts(p_question, p_value, 1, weight, CASE WHEN blk.skipped THEN NULL ELSE blk.value END, 0,
      CASE WHEN blk.vote_table = 'question_votes' THEN -(1 + blk.intree) ELSE 0 END);
    PERFORM count_user_answer(p_user, false, NULL, is_private, rules.at);
    PERFORM move_tag_votes(p_question, 1);
    RETURN QUERY SELECT 'written', CASE WHEN NOT is_private AND p_value IS NOT NULL THEN blk.intree ELSE 0 END, written;
    RETURN;
  END IF;

  -- The weight is set outright below: the deltas leaves left on it join it first (they have all committed).
  IF held.liquid_weight > 1 THEN held.liquid_weight := held.liquid_weight + claim_liquid_weight(p_question, false, held.id); END IF;
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

CREATE OR REPLACE FUNCTION cast_pick(p_choice integer, p_user integer, p_staff boolean, p_value smallint,
  p_private boolean, p_collection integer, p_interface text, p_os text, p_browser text, p_parent_url text,
  p_location text) RETURNS TABLE(outcome text, carried integer, vote question_choice_votes)
LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' AS $$
DECLARE
  qid integer;
  rules record;
  held question_choice_votes;
  blk record;
  leaf record;
  rep_choice integer;
  reach text;
  is_private boolean;
  weight integer;
  written question_choice_votes;
BEGIN
  SELECT c.question_id INTO qid FROM question_choices c WHERE c.id = p_choice;
  IF qid IS NULL THEN RETURN QUERY SELECT 'missing', 0, NULL::question_choice_votes; RETURN; END IF;
  SELECT * INTO rules FROM lock_answerable_question(qid, p_user, p_staff, true, p_collection);
  IF rules.refusal IS NOT NULL THEN RETURN QUERY SELECT rules.refusal, 0, NULL::question_choice_votes; RETURN; END IF;
  -- The choice may have gone before the gate; changes of choices wait for it from here on.
  IF NOT EXISTS (SELECT FROM question_choices WHERE id = p_choice AND question_id = qid) THEN
    RETURN QUERY SELECT 'missing', 0, NULL::question_choice_votes; RETURN;
  END IF;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  SELECT * INTO held FROM question_choice_votes v WHERE v.question_id = qid AND v.user_id = p_user FOR UPDATE;
  reach := lock_answer_reach(qid, p_user, is_private, held.private, held.liquid_weight);
  ${chooseBlock('qid', true)}
  IF held.id IS NULL THEN
    weight := CASE WHEN NOT is_private AND blk.eligible THEN 1 + blk.intree ELSE 1 END;
    rep_choice := CASE WHEN blk.vote_table = 'question_choice_votes' THEN blk.target_id END;
    ${BEFORE_LEAF_INSERT}
    INSERT INTO question_choice_votes (question_id, choice_id, user_id, value, skipped, private, liquid_weight, collection_id,
      analytics_interface, analytics_os, analytics_browser, analytics_parent_url, analytics_location, created_at, modified_at)
    VALUES (qid, p_choice, p_user, p_value, p_value IS NULL, is_private, weight, p_collection,
      p_interface, p_os, p_browser, p_parent_url, p_location, rules.at, rules.at)
    RETURNING * INTO written;
    ${afterLeafInsert('qid')}
    -- The block leaves the representative it counted at without this answer.
    IF rep_choice IS NOT NULL THEN
      IF reach = 'chain' THEN
        INSERT INTO liquid_weight_deltas (question_id, pick, vote_id, delta) VALUES (qid, true, blk.vote_id, -(1 + blk.intree));
      ELSE
        UPDATE question_choice_votes SET liquid_weight = liquid_weight - (1 + blk.intree) WHERE id = blk.vote_id;
      END IF;
      PERFORM move_choice_counts(rep_choice, CASE WHEN blk.skipped THEN NULL ELSE blk.value END, 0, -(1 + blk.intree));
    END IF;
    PERFORM move_choice_counts(p_choice, p_value, 1, weight);
    PERFORM count_user_answer(p_user, true, NULL, is_private, rules.at);
    RETURN QUERY SELECT 'written', CASE WHEN NOT is_private THEN blk.intree ELSE 0 END, written;
    RETURN;
  END IF;

  IF held.liquid_weight > 1 THEN held.liquid_weight := held.liquid_weight + claim_liquid_weight(qid, true, held.id); END IF;
  weight := replaced_answer_weight(qid, p_user, held.private, held.liquid_weight, is_private);
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
`,
  )
}

export async function down(): Promise<void> {
  throw new Error('2026-11-30-054-liquid-weights-as-deltas cannot be undone: restore a backup taken before it')
}
