import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

/**
 * Answers to one question no longer queue on its row. Before, every answer locked the question (FOR UPDATE) and
 * moved the counts on its row and on its tags' rows, so answers to one question ran one at a time.
 *
 * - The answering gate: an answer takes a shared advisory lock per question (and a shared global one); whatever
 *   changes the rules an answer is checked against (the question, its choices, delegations, an edit or withdrawal of
 *   an answer, a recount) takes it exclusively (lock_question_answers), so answers run side by side and still see
 *   rules that hold until they commit.
 * - Answers that reach other people's rows (private ones, which batches count together; a first answer on a
 *   delegation chain or with unanswered delegators; one carrying others' votes) also take the question's serial
 *   lock, one at a time as before; two answers of one person to one question wait for each other.
 * - Counts are appended as deltas (question_figure_deltas, tag_vote_deltas) that fold_figure_deltas adds to the
 *   stored counts in batches; readers add the deltas not yet folded (pending_figure_counts, pending_tag_votes), so
 *   every figure read is exact.
 */
/** Tables without a change notice: the answer that writes a delta announces itself, and a fold changes no figure. */
export const DELTA_TABLES_WITHOUT_NOTICE = ['question_figure_deltas', 'tag_vote_deltas'] as const

const COUNTS = ['direct', 'liquid'].flatMap((p) => ['minimum', 'low', 'medium', 'high', 'maximum', 'skipped'].map((l) => `${p}_${l}`))
const list = (f: (c: string) => string, sep = ', ') => COUNTS.map(f).join(sep)

export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE TABLE question_figure_deltas (
  question_id integer NOT NULL,
  choice_id integer,
  ${list((c) => `${c} integer NOT NULL DEFAULT 0`, ',\n  ')}
);
CREATE INDEX question_figure_deltas_question ON question_figure_deltas (question_id);
CREATE TABLE tag_vote_deltas (tag_id integer NOT NULL, delta integer NOT NULL);
CREATE INDEX tag_vote_deltas_tag ON tag_vote_deltas (tag_id);

CREATE VIEW pending_figure_counts AS
  SELECT question_id, choice_id, ${list((c) => `sum(${c})::integer AS ${c}`)}
  FROM question_figure_deltas GROUP BY question_id, choice_id;
CREATE VIEW pending_tag_votes AS
  SELECT tag_id, sum(delta)::integer AS delta FROM tag_vote_deltas GROUP BY tag_id;

CREATE OR REPLACE FUNCTION move_likert_counts(p_question integer, p_a smallint, p_direct_a integer, p_liquid_a integer,
  p_b smallint, p_direct_b integer, p_liquid_b integer) RETURNS void LANGUAGE plpgsql AS $$
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
  INSERT INTO question_figure_deltas (question_id, ${COUNTS.join(', ')})
  VALUES (p_question, da.c1 + db.c1, da.c2 + db.c2, da.c3 + db.c3, da.c4 + db.c4, da.c5 + db.c5, da.skipped + db.skipped,
    la.c1 + lb.c1, la.c2 + lb.c2, la.c3 + lb.c3, la.c4 + lb.c4, la.c5 + lb.c5, la.skipped + lb.skipped);
END $$;

CREATE OR REPLACE FUNCTION move_choice_counts(p_choice integer, p_value smallint, p_direct integer, p_liquid integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  d record;
  l record;
BEGIN
  SELECT * INTO d FROM likert_count_deltas(p_value, p_direct);
  SELECT * INTO l FROM likert_count_deltas(p_value, p_liquid);
  INSERT INTO question_figure_deltas (question_id, choice_id, ${COUNTS.join(', ')})
  SELECT c.question_id, p_choice, d.c1, d.c2, d.c3, d.c4, d.c5, d.skipped, l.c1, l.c2, l.c3, l.c4, l.c5, l.skipped
  FROM question_choices c WHERE c.id = p_choice;
END $$;

CREATE OR REPLACE FUNCTION move_tag_votes(p_question integer, p_delta integer) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tag_vote_deltas (tag_id, delta) SELECT t, p_delta FROM question_tag_ids(p_question) AS t;
END $$;

-- Adds the deltas to the stored counts, per question, in one transaction: a reader sees them either pending or
-- folded. Rows another writer holds are left for the next fold unless p_wait. With p_questions, only those
-- questions' deltas, for a writer that holds their answers' gate and sets their counts outright.
-- Its statements touch a few rows: compiling them (JIT) would cost more than running them.
CREATE FUNCTION fold_figure_deltas(p_wait boolean DEFAULT false, p_questions integer[] DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  qs integer[];
  ts integer[];
  folded integer := 0;
  moved integer;
  announcing text := current_setting('civic.notices_after_commit', true);
BEGIN
  IF p_questions IS NOT NULL THEN
    SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id = ANY(p_questions)
      AND id IN (SELECT question_id FROM question_figure_deltas) ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSIF p_wait THEN
    PERFORM pg_advisory_xact_lock(4703, 0);
  ELSIF NOT pg_try_advisory_xact_lock(4703, 0) THEN
    RETURN 0;
  END IF;
  -- What readers are served does not change, so the fold announces nothing (and the caller's setting comes back).
  PERFORM set_config('civic.notices_after_commit', 'on', true);
  IF p_questions IS NOT NULL THEN
    NULL;
  ELSIF p_wait THEN
    SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id IN (SELECT question_id FROM question_figure_deltas)
      ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSE
    SELECT array_agg(id) INTO qs FROM (SELECT id FROM questions WHERE id IN (SELECT question_id FROM question_figure_deltas)
      ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
  END IF;
  IF qs IS NOT NULL THEN
    WITH gone AS (DELETE FROM question_figure_deltas WHERE question_id = ANY(qs) RETURNING *),
    sums AS (SELECT question_id, choice_id, count(*) AS n, ${list((c) => `sum(${c}) AS ${c}`)} FROM gone GROUP BY question_id, choice_id),
    on_questions AS (UPDATE questions AS q SET ${list((c) => `${c} = q.${c} + s.${c}`)}
      FROM sums s WHERE s.choice_id IS NULL AND q.id = s.question_id),
    on_choices AS (UPDATE question_choices AS q SET ${list((c) => `${c} = q.${c} + s.${c}`)}
      FROM sums s WHERE q.id = s.choice_id)
    SELECT coalesce(sum(n), 0) INTO moved FROM sums;
    folded := folded + moved;
  END IF;
  IF p_questions IS NOT NULL THEN
    PERFORM set_config('civic.notices_after_commit', coalesce(announcing, ''), true);
    RETURN folded;
  END IF;
  IF p_wait THEN
    SELECT array_agg(id) INTO ts FROM (SELECT id FROM tags WHERE id IN (SELECT tag_id FROM tag_vote_deltas)
      ORDER BY id FOR NO KEY UPDATE) AS l;
  ELSE
    SELECT array_agg(id) INTO ts FROM (SELECT id FROM tags WHERE id IN (SELECT tag_id FROM tag_vote_deltas)
      ORDER BY id FOR NO KEY UPDATE SKIP LOCKED) AS l;
  END IF;
  IF ts IS NOT NULL THEN
    WITH gone AS (DELETE FROM tag_vote_deltas WHERE tag_id = ANY(ts) RETURNING tag_id, delta),
    sums AS (SELECT tag_id, count(*) AS n, sum(delta) AS delta FROM gone GROUP BY tag_id),
    on_tags AS (UPDATE tags AS t SET votes_count = t.votes_count + s.delta FROM sums s WHERE t.id = s.tag_id)
    SELECT coalesce(sum(n), 0) INTO moved FROM sums;
    folded := folded + moved;
  END IF;
  -- Deltas of questions, choices and tags deleted since: a probe per distinct id left, not a scan of their tables.
  DELETE FROM question_figure_deltas d
  WHERE d.question_id IN (SELECT g.id FROM (SELECT DISTINCT question_id AS id FROM question_figure_deltas) AS g
                          WHERE NOT EXISTS (SELECT FROM questions q WHERE q.id = g.id))
     OR d.choice_id IN (SELECT g.id FROM (SELECT DISTINCT choice_id AS id FROM question_figure_deltas WHERE choice_id IS NOT NULL) AS g
                        WHERE NOT EXISTS (SELECT FROM question_choices c WHERE c.id = g.id));
  DELETE FROM tag_vote_deltas d
  WHERE d.tag_id IN (SELECT g.id FROM (SELECT DISTINCT tag_id AS id FROM tag_vote_deltas) AS g
                     WHERE NOT EXISTS (SELECT FROM tags t WHERE t.id = g.id));
  PERFORM set_config('civic.notices_after_commit', coalesce(announcing, ''), true);
  RETURN folded;
END $$;

-- Excludes answers to these questions (all of them when NULL or many) until the transaction ends: taken by every
-- change of what an answer is checked against, before any row lock.
CREATE FUNCTION lock_question_answers(p_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  qid integer;
BEGIN
  IF p_ids IS NULL OR cardinality(p_ids) > 64 THEN
    PERFORM pg_advisory_xact_lock(4701, 0);
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(4701, 0);
  FOR qid IN SELECT DISTINCT i FROM unnest(p_ids) AS i WHERE i IS NOT NULL ORDER BY i LOOP
    PERFORM pg_advisory_xact_lock(4701, qid);
  END LOOP;
END $$;

-- Whether an answer reaches rows beyond the voter's own (batches, blocks, others' weights), so that it must wait
-- for the question's other such answers.
CREATE FUNCTION answer_reaches_others(p_question integer, p_user integer, p_private boolean, p_was_private boolean,
  p_weight integer) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT p_private OR coalesce(p_was_private, false) OR coalesce(p_weight, 1) <> 1
    OR EXISTS (SELECT FROM unreleased_answers u WHERE u.question_id = p_question AND u.user_id = p_user)
    OR (p_weight IS NULL AND (liquid_parent(p_question, p_user) IS NOT NULL OR liquid_intree(p_question, p_user) > 0))
$$;

CREATE OR REPLACE FUNCTION lock_answerable_question(p_question integer, p_user integer, p_staff boolean, p_pick boolean,
  p_collection integer, OUT refusal text, OUT at timestamptz) RETURNS record LANGUAGE plpgsql AS $$
DECLARE
  q record;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(4701, 0);
  PERFORM pg_advisory_xact_lock_shared(4701, p_question);
  -- The voter's answers to one question, one at a time.
  PERFORM pg_advisory_xact_lock((p_question::bigint << 32) | p_user);
  SELECT id, user_id, subtype, publish, start_at, end_at INTO q FROM questions WHERE id = p_question;
  IF NOT FOUND OR NOT (q.publish OR q.user_id = p_user OR p_staff) THEN refusal := 'missing'; RETURN; END IF;
  PERFORM set_config('civic.notices_after_commit', 'on', true);
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

CREATE OR REPLACE FUNCTION lock_held_answer(p_pick boolean, p_vote integer)
RETURNS TABLE(id integer, question_id integer, target integer, user_id integer, value smallint, skipped boolean, private boolean,
  liquid_weight integer, modified_at timestamptz, importance smallint, start_at timestamptz, end_at timestamptz, at timestamptz)
LANGUAGE plpgsql AS $$
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
  PERFORM lock_question_answers(ARRAY[qid]);
  SELECT qq.start_at, qq.end_at INTO q FROM questions qq WHERE qq.id = qid;
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

CREATE OR REPLACE FUNCTION cast_likert(p_question integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_importance smallint, p_keep_importance boolean, p_interface text, p_os text, p_browser text,
  p_parent_url text, p_location text)
RETURNS TABLE(outcome text, carried integer, vote question_votes) LANGUAGE plpgsql AS $$
DECLARE
  rules record;
  held question_votes;
  blk record;
  serial boolean;
  is_private boolean;
  weight integer;
  written question_votes;
BEGIN
  SELECT * INTO rules FROM lock_answerable_question(p_question, p_user, p_staff, false, p_collection);
  IF rules.refusal IS NOT NULL THEN RETURN QUERY SELECT rules.refusal, 0, NULL::question_votes; RETURN; END IF;
  is_private := coalesce(p_private, (SELECT u.default_private FROM users u WHERE u.id = p_user));
  SELECT * INTO held FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user FOR UPDATE;
  serial := answer_reaches_others(p_question, p_user, is_private, held.private, held.liquid_weight);
  IF serial THEN PERFORM pg_advisory_xact_lock(4702, p_question); END IF;
  IF serial AND held.id IS NULL THEN
    SELECT * INTO blk FROM liquid_block(p_question, p_user);
  ELSE
    -- Nobody's vote passes through the voter, and theirs goes nowhere: a block of one.
    SELECT 0 AS intree, true AS eligible, NULL::text AS vote_table, NULL::integer AS vote_id, NULL::integer AS target_id,
      NULL::smallint AS value, NULL::boolean AS skipped INTO blk;
  END IF;

  IF held.id IS NULL THEN
    -- A first answer: its block (themselves and the unanswered people whose chains pass through them) leaves the
    -- representative it counted at, and counts here while the answer is public.
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

CREATE OR REPLACE FUNCTION cast_pick(p_choice integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_interface text, p_os text, p_browser text, p_parent_url text, p_location text)
RETURNS TABLE(outcome text, carried integer, vote question_choice_votes) LANGUAGE plpgsql AS $$
DECLARE
  qid integer;
  rules record;
  held question_choice_votes;
  blk record;
  rep_choice integer;
  serial boolean;
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
  serial := answer_reaches_others(qid, p_user, is_private, held.private, held.liquid_weight);
  IF serial THEN PERFORM pg_advisory_xact_lock(4702, qid); END IF;
  IF serial AND held.id IS NULL THEN
    SELECT * INTO blk FROM liquid_block(qid, p_user);
  ELSE
    SELECT 0 AS intree, true AS eligible, NULL::text AS vote_table, NULL::integer AS vote_id, NULL::integer AS target_id,
      NULL::smallint AS value, NULL::boolean AS skipped INTO blk;
  END IF;
  IF held.id IS NULL THEN
    weight := CASE WHEN NOT is_private AND blk.eligible THEN 1 + blk.intree ELSE 1 END;
    rep_choice := CASE WHEN blk.vote_table = 'question_choice_votes' THEN blk.target_id END;
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

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(db, `SELECT fold_figure_deltas(true);`)
  await runScript(
    db,
    `
DROP FUNCTION fold_figure_deltas(boolean, integer[]);
DROP FUNCTION answer_reaches_others(integer, integer, boolean, boolean, integer);
DROP FUNCTION lock_question_answers(integer[]);
CREATE OR REPLACE FUNCTION cast_likert(p_question integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean, p_collection integer, p_importance smallint, p_keep_importance boolean, p_interface text, p_os text, p_browser text, p_parent_url text, p_location text)
 RETURNS TABLE(outcome text, carried integer, vote question_votes)
 LANGUAGE plpgsql
AS $$
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
    -- representative it counted at, and counts here while the answer is 
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

CREATE OR REPLACE FUNCTION cast_pick(p_choice integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean, p_collection integer, p_interface text, p_os text, p_browser text, p_parent_url text, p_location text)
 RETURNS TABLE(outcome text, carried integer, vote question_choice_votes)
 LANGUAGE plpgsql
AS $$
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

CREATE OR REPLACE FUNCTION withdraw_answer(p_pick boolean, p_vote integer, OUT outcome text, OUT question integer, OUT voter integer, OUT carried integer)
 RETURNS record
 LANGUAGE plpgsql
AS $$
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

CREATE OR REPLACE FUNCTION lock_answerable_question(p_question integer, p_user integer, p_staff boolean, p_pick boolean, p_collection integer, OUT refusal text, OUT at timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
AS $$
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

CREATE OR REPLACE FUNCTION lock_held_answer(p_pick boolean, p_vote integer)
 RETURNS TABLE(id integer, question_id integer, target integer, user_id integer, value smallint, skipped boolean, private boolean, liquid_weight integer, modified_at timestamp with time zone, importance smallint, start_at timestamp with time zone, end_at timestamp with time zone, at timestamp with time zone)
 LANGUAGE plpgsql
AS $$
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

CREATE OR REPLACE FUNCTION move_likert_counts(p_question integer, p_a smallint, p_direct_a integer, p_liquid_a integer, p_b smallint, p_direct_b integer, p_liquid_b integer)
 RETURNS void
 LANGUAGE plpgsql
AS $$
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

CREATE OR REPLACE FUNCTION move_choice_counts(p_choice integer, p_value smallint, p_direct integer, p_liquid integer)
 RETURNS void
 LANGUAGE plpgsql
AS $$
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

CREATE OR REPLACE FUNCTION move_tag_votes(p_question integer, p_delta integer)
 RETURNS void
 LANGUAGE plpgsql
AS $$
BEGIN
  UPDATE tags SET votes_count = votes_count + p_delta WHERE id IN (
    SELECT id FROM tags WHERE id IN (SELECT question_tag_ids(p_question)) ORDER BY id FOR NO KEY UPDATE);
END $$;
DROP VIEW pending_figure_counts;
DROP VIEW pending_tag_votes;
DROP TABLE question_figure_deltas;
DROP TABLE tag_vote_deltas;
`,
  )
}
