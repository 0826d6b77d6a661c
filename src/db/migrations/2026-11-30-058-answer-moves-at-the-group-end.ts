import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

export const LIKERT_PARAMETERS = `p_question integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_importance smallint, p_keep_importance boolean, p_interface text, p_os text, p_browser text,
  p_parent_url text, p_location text`
export const PICK_PARAMETERS = `p_choice integer, p_user integer, p_staff boolean, p_value smallint, p_private boolean,
  p_collection integer, p_interface text, p_os text, p_browser text, p_parent_url text, p_location text`
export const LIKERT_ARRAYS = `p_question integer[], p_person integer[], p_staff boolean[], p_value smallint[], p_private boolean[],
  p_collection integer[], p_importance smallint[], p_keep_importance boolean[], p_interface text[], p_os text[],
  p_browser text[], p_parent_url text[], p_location text[]`
export const PICK_ARRAYS = `p_choice integer[], p_person integer[], p_staff boolean[], p_value smallint[], p_private boolean[],
  p_collection integer[], p_interface text[], p_os text[], p_browser text[], p_parent_url text[], p_location text[]`
export const LIKERT_ARGUMENTS = `p_question, p_user, p_staff, p_value, p_private, p_collection, p_importance, p_keep_importance,
    p_interface, p_os, p_browser, p_parent_url, p_location`
export const PICK_ARGUMENTS = `p_choice, p_user, p_staff, p_value, p_private, p_collection, p_interface, p_os, p_browser,
    p_parent_url, p_location`

/** What a cast moves besides its own rows, returned for its caller to write (after the outcome, carried and vote). */
const MOVES = `was boolean, moved_questions integer[], moved_choices integer[], moved_values smallint[],
  moved_direct integer[], moved_liquid integer[], tag_delta integer`
/** A refusal by name: nothing written, nothing moved. */
const refused = (name: string) => `BEGIN outcome := ${name}; carried := 0; tag_delta := 0; RETURN NEXT; RETURN; END;`
/** The default privacy read only when the body leaves it out (a sub-select would start an executor at every cast). */
const PRIVACY = `IF p_private IS NULL THEN
    SELECT u.default_private INTO is_private FROM users u WHERE u.id = p_user;
  ELSE
    is_private := p_private;
  END IF;`

/** The answer written and what it moved, as the result's one row (assignments, not a statement). */
const moved = (...values: string[]) => {
  const names = [
    'outcome',
    'carried',
    'was',
    'moved_questions',
    'moved_choices',
    'moved_values',
    'moved_direct',
    'moved_liquid',
    'tag_delta',
  ]
  return `${names.map((name, i) => `${name} := ${values[i]};`).join('\n    ')}
    vote := written;
    RETURN NEXT;
    RETURN;`
}

const BLOCK_OF_ONE = `SELECT 0 AS intree, true AS eligible, NULL::text AS vote_table, NULL::integer AS vote_id,
      NULL::integer AS target_id, NULL::smallint AS value, NULL::boolean AS skipped INTO blk;`
const chooseBlock = (question: string, pick: boolean) => `IF reach = 'chain' THEN
    SELECT * INTO leaf FROM liquid_leaf_block(${question}, p_user, ${pick});
    SELECT 0 AS intree, liquid_eligible(p_user) AS eligible, leaf.vote_table, leaf.vote_id, leaf.target_id, leaf.value,
      leaf.skipped INTO blk;
  ELSIF reach <> 'own' AND held.id IS NULL THEN
    SELECT * INTO blk FROM liquid_block(${question}, p_user);
  ELSE
    ${BLOCK_OF_ONE}
  END IF;`
const BEFORE_LEAF_INSERT = `IF reach = 'chain' THEN PERFORM set_config('civic.liquid_chain', 'on', true); END IF;`
const afterLeafInsert = (question: string) => `IF reach = 'chain' THEN
      PERFORM liquid_blocks_follow(${question}, p_user, leaf.path, leaf.looped, -1);
      PERFORM set_config('civic.liquid_chain', '', true);
    END IF;`

/** The casts' bodies as 054 left them, but for the counts, tags and counters, which they return as moves. */
const CAST_LIKERT_MOVES = `
CREATE FUNCTION cast_likert_moves(${LIKERT_PARAMETERS})
RETURNS TABLE(outcome text, carried integer, vote question_votes, ${MOVES})
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
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
  IF rules.refusal IS NOT NULL THEN ${refused('rules.refusal')} END IF;
  ${PRIVACY}
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
    ${moved(
      "'written'",
      'CASE WHEN NOT is_private AND p_value IS NOT NULL THEN blk.intree ELSE 0 END',
      'NULL',
      'ARRAY[p_question, p_question]',
      'ARRAY[NULL, NULL]::integer[]',
      'ARRAY[p_value, CASE WHEN blk.skipped THEN NULL ELSE blk.value END]',
      'ARRAY[1, 0]',
      "ARRAY[weight, CASE WHEN blk.vote_table = 'question_votes' THEN -(1 + blk.intree) ELSE 0 END]",
      '1',
    )}
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
  ${moved(
    "'replaced'",
    '0',
    'held.private',
    'ARRAY[p_question, p_question]',
    'ARRAY[NULL, NULL]::integer[]',
    'ARRAY[CASE WHEN held.skipped THEN NULL ELSE held.value END, p_value]',
    'ARRAY[-1, 1]',
    'ARRAY[-held.liquid_weight, weight]',
    '0',
  )}
END $$;`

const CAST_PICK_MOVES = `
CREATE FUNCTION cast_pick_moves(${PICK_PARAMETERS})
RETURNS TABLE(outcome text, carried integer, vote question_choice_votes, ${MOVES})
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
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
  IF qid IS NULL THEN ${refused("'missing'")} END IF;
  SELECT * INTO rules FROM lock_answerable_question(qid, p_user, p_staff, true, p_collection);
  IF rules.refusal IS NOT NULL THEN ${refused('rules.refusal')} END IF;
  -- The choice may have gone before the gate; changes of choices wait for it from here on.
  IF NOT EXISTS (SELECT FROM question_choices WHERE id = p_choice AND question_id = qid) THEN
    ${refused("'missing'")}
  END IF;
  ${PRIVACY}
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
    END IF;
    ${moved(
      "'written'",
      'CASE WHEN NOT is_private THEN blk.intree ELSE 0 END',
      'NULL',
      'ARRAY[qid, qid]',
      'ARRAY[rep_choice, p_choice]',
      'ARRAY[CASE WHEN blk.skipped THEN NULL ELSE blk.value END, p_value]',
      'ARRAY[0, 1]',
      'ARRAY[CASE WHEN rep_choice IS NULL THEN 0 ELSE -(1 + blk.intree) END, weight]',
      '0',
    )}
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
  ${moved(
    "'replaced'",
    '0',
    'held.private',
    'ARRAY[qid, qid]',
    'ARRAY[held.choice_id, p_choice]',
    'ARRAY[CASE WHEN held.skipped THEN NULL ELSE held.value END, p_value]',
    'ARRAY[-1, 1]',
    'ARRAY[-held.liquid_weight, weight]',
    '0',
  )}
END $$;`

/** A cast alone: its moves written at once, its counters through count_user_answer (kept for an older group's end). */
const alone = (call: 'cast_likert' | 'cast_pick', parameters: string, row: string, args: string) => `
CREATE OR REPLACE FUNCTION ${call}(${parameters})
RETURNS TABLE(outcome text, carried integer, vote ${row})
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  m record;
BEGIN
  SELECT * INTO m FROM ${call}_moves(${args});
  IF m.outcome IN ('written', 'replaced') THEN
    PERFORM append_figure_deltas(m.moved_questions, m.moved_choices, m.moved_values, m.moved_direct, m.moved_liquid);
    IF m.tag_delta <> 0 THEN PERFORM append_tag_vote_deltas(ARRAY[(m.vote).question_id], ARRAY[m.tag_delta]); END IF;
    PERFORM count_user_answer((m.vote).user_id, ${call === 'cast_pick'}, m.was, (m.vote).private, (m.vote).modified_at);
  END IF;
  outcome := m.outcome;
  carried := m.carried;
  vote := m.vote;
  RETURN NEXT;
END $$;`

/** A group: the casts in question order, then person order; their moves written together at the end. */
const group = (call: 'cast_likert' | 'cast_pick', arrays: string, row: string, names: string[], order: string) => `
CREATE OR REPLACE FUNCTION ${call}_group(${arrays})
RETURNS TABLE(n bigint, outcome text, carried integer, vote ${row}) LANGUAGE plpgsql AS $$
DECLARE
  a record;
  m record;
  questions integer[] := '{}';
  choices integer[] := '{}';
  answer_values smallint[] := '{}';
  direct integer[] := '{}';
  liquid integer[] := '{}';
  tag_questions integer[] := '{}';
  tag_deltas integer[] := '{}';
  people integer[] := '{}';
  was_private boolean[] := '{}';
  now_private boolean[] := '{}';
  answered_at timestamptz[] := '{}';
BEGIN
  FOR a IN
    SELECT u.* FROM unnest(${names.map((name) => `p_${name}`).join(', ')})
      WITH ORDINALITY AS u(${names.join(', ')}, n)
    ${order}
  LOOP
    SELECT * INTO m FROM ${call}_moves(${names.map((name) => `a.${name}`).join(', ')});
    n := a.n;
    outcome := m.outcome;
    carried := m.carried;
    vote := m.vote;
    RETURN NEXT;
    IF m.outcome IN ('written', 'replaced') THEN
      questions := questions || m.moved_questions;
      choices := choices || m.moved_choices;
      answer_values := answer_values || m.moved_values;
      direct := direct || m.moved_direct;
      liquid := liquid || m.moved_liquid;
      IF m.tag_delta <> 0 THEN
        tag_questions := tag_questions || (m.vote).question_id;
        tag_deltas := tag_deltas || m.tag_delta;
      END IF;
      people := people || (m.vote).user_id;
      was_private := was_private || m.was;
      now_private := now_private || (m.vote).private;
      answered_at := answered_at || (m.vote).modified_at;
    END IF;
  END LOOP;
  PERFORM append_figure_deltas(questions, choices, answer_values, direct, liquid);
  -- Picks move no tag.
  IF cardinality(tag_questions) > 0 THEN PERFORM append_tag_vote_deltas(tag_questions, tag_deltas); END IF;
  PERFORM count_user_answers(people, array_fill(${call === 'cast_pick'}, ARRAY[cardinality(people)]), was_private,
    now_private, answered_at);
END $$;`

const ANALYTICS = ['interface', 'os', 'browser', 'parent_url', 'location']
export const LIKERT_NAMES = [
  ...['question', 'person', 'staff', 'value', 'private', 'collection', 'importance', 'keep_importance'],
  ...ANALYTICS,
]
export const PICK_NAMES = ['choice', 'person', 'staff', 'value', 'private', 'collection', ...ANALYTICS]

const COUNT_COLUMNS = ['minimum', 'low', 'medium', 'high', 'maximum', 'skipped']
const LEVELS = ['c1', 'c2', 'c3', 'c4', 'c5', 'skipped']

/**
 * Each answer of a group wrote its figure deltas, its tags' deltas and its voter's counters as it went: three to five
 * statements an answer, most of a group's time in the database. Now a cast's body returns what it moves
 * (cast_likert_moves, cast_pick_moves) and its caller writes it: alone at once, as before, and in a group at its end,
 * in one statement each, deltas summed by question and choice and tag, counters in person order (as 057). The rules
 * of how a move becomes a delta row and how an answer moves its voter's counters each live in one set-based function
 * (append_figure_deltas, append_tag_vote_deltas, count_user_answers) that the one-row functions call. Nothing reads
 * deltas or counters inside an answer's transaction, so writing them at the group's end changes no read. Expand only:
 * cast_likert and cast_pick write as before; count_answers_after (the previous release's group) writes its counters
 * in one statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
-- Each statement of a function starts an executor, so the three locks (taken in the order written) and the setting
-- are one, and the collection is looked up only when the answer names one. The question is read by a statement of
-- its own: its snapshot must be taken once the gate is held.
CREATE OR REPLACE FUNCTION lock_answerable_question(p_question integer, p_user integer, p_staff boolean, p_pick boolean,
  p_collection integer, OUT refusal text, OUT at timestamptz)
RETURNS record LANGUAGE plpgsql AS $$
DECLARE
  q record;
BEGIN
  -- The gate shared, the question's gate shared, and the voter's answers to one question one at a time.
  PERFORM pg_advisory_xact_lock_shared(4701, 0), pg_advisory_xact_lock_shared(4701, p_question),
    pg_advisory_xact_lock((p_question::bigint << 32) | p_user), set_config('civic.notices_after_commit', 'on', true);
  SELECT id, user_id, subtype, publish, start_at, end_at INTO q FROM questions WHERE id = p_question;
  IF NOT FOUND OR NOT (q.publish OR q.user_id = p_user OR p_staff) THEN refusal := 'missing'; RETURN; END IF;
  at := clock_timestamp();
  refusal := CASE
    WHEN p_pick AND q.subtype <> 'mcq' THEN 'not_mcq'
    WHEN NOT p_pick AND q.subtype = 'mcq' THEN 'mcq'
    ELSE window_refusal(q.start_at, q.end_at, at)
  END;
  IF refusal IS NULL AND p_collection IS NOT NULL THEN
    IF NOT EXISTS (SELECT FROM question_collections c WHERE c.id = p_collection) THEN refusal := 'collection'; END IF;
  END IF;
END $$;

CREATE FUNCTION append_figure_deltas(p_question integer[], p_choice integer[], p_value smallint[], p_direct integer[],
  p_liquid integer[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  INSERT INTO question_figure_deltas (question_id, choice_id, ${COUNT_COLUMNS.map((c) => `direct_${c}`).join(', ')},
    ${COUNT_COLUMNS.map((c) => `liquid_${c}`).join(', ')})
  SELECT m.question, m.choice, ${LEVELS.map((l) => `sum(d.${l})::integer`).join(', ')},
    ${LEVELS.map((l) => `sum(l.${l})::integer`).join(', ')}
  FROM unnest(p_question, p_choice, p_value, p_direct, p_liquid) AS m(question, choice, value, direct, liquid),
    likert_count_deltas(m.value, m.direct) AS d, likert_count_deltas(m.value, m.liquid) AS l
  WHERE m.direct <> 0 OR m.liquid <> 0
  GROUP BY m.question, m.choice;
END $$;

CREATE OR REPLACE FUNCTION move_likert_counts(p_question integer, p_a smallint, p_direct_a integer, p_liquid_a integer,
  p_b smallint, p_direct_b integer, p_liquid_b integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM append_figure_deltas(ARRAY[p_question, p_question], ARRAY[NULL, NULL]::integer[], ARRAY[p_a, p_b],
    ARRAY[p_direct_a, p_direct_b], ARRAY[p_liquid_a, p_liquid_b]);
END $$;

CREATE OR REPLACE FUNCTION move_choice_counts(p_choice integer, p_value smallint, p_direct integer, p_liquid integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM append_figure_deltas(ARRAY[c.question_id], ARRAY[p_choice], ARRAY[p_value], ARRAY[p_direct], ARRAY[p_liquid])
  FROM question_choices c WHERE c.id = p_choice;
END $$;

CREATE FUNCTION append_tag_vote_deltas(p_question integer[], p_delta integer[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  INSERT INTO tag_vote_deltas (tag_id, delta)
  SELECT t.tag, sum(m.delta)::integer
  FROM unnest(p_question, p_delta) AS m(question, delta), question_tag_ids(m.question) AS t(tag)
  WHERE m.delta <> 0
  GROUP BY t.tag;
END $$;

CREATE OR REPLACE FUNCTION move_tag_votes(p_question integer, p_delta integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM append_tag_vote_deltas(ARRAY[p_question], ARRAY[p_delta]);
END $$;

CREATE FUNCTION count_user_answers(p_user integer[], p_pick boolean[], p_was boolean[], p_now boolean[],
  p_at timestamptz[])
RETURNS void LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  -- In person order, and before the latest answers are read again (a withdrawal, a public answer made private).
  PERFORM FROM user_answer_counts WHERE id = ANY(p_user) ORDER BY id FOR NO KEY UPDATE;
  UPDATE user_answer_counts t SET
    count_question_votes = t.count_question_votes + c.question_answers,
    count_choice_votes = t.count_choice_votes + c.choice_answers,
    count_votes = t.count_votes + c.question_answers + c.choice_answers,
    public_count_question_votes = t.public_count_question_votes + c.question_shown,
    public_count_choice_votes = t.public_count_choice_votes + c.choice_shown,
    public_count_votes = t.public_count_votes + c.question_shown + c.choice_shown,
    last_answer_time = CASE WHEN c.withdrew THEN greatest(
        (SELECT max(modified_at) FROM question_votes WHERE user_id = t.id),
        (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = t.id))
      ELSE greatest(t.last_answer_time, c.latest) END,
    public_last_answer_time = CASE WHEN c.hid THEN greatest(
        (SELECT max(modified_at) FROM question_votes WHERE user_id = t.id AND NOT private),
        (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = t.id AND NOT private))
      ELSE greatest(t.public_last_answer_time, c.latest_public) END
  FROM (
    SELECT m.person,
      coalesce(sum(m.answers) FILTER (WHERE NOT m.pick), 0)::integer AS question_answers,
      coalesce(sum(m.answers) FILTER (WHERE m.pick), 0)::integer AS choice_answers,
      coalesce(sum(m.shown) FILTER (WHERE NOT m.pick), 0)::integer AS question_shown,
      coalesce(sum(m.shown) FILTER (WHERE m.pick), 0)::integer AS choice_shown,
      coalesce(bool_or(m.now IS NULL), false) AS withdrew,
      max(m.at) FILTER (WHERE m.now IS NOT NULL) AS latest,
      -- A public answer withdrawn or made private: the latest public one is read again.
      coalesce(bool_or(NOT m.was AND m.now IS DISTINCT FROM false), false) AS hid,
      max(m.at) FILTER (WHERE NOT m.now) AS latest_public
    FROM (
      SELECT u.person, u.pick, u.was, u.now, u.at,
        (u.now IS NOT NULL)::integer - (u.was IS NOT NULL)::integer AS answers,
        coalesce((NOT u.now)::integer, 0) - coalesce((NOT u.was)::integer, 0) AS shown
      FROM unnest(p_user, p_pick, p_was, p_now, p_at) AS u(person, pick, was, now, at)
    ) AS m
    GROUP BY m.person
  ) AS c
  WHERE t.id = c.person;
END $$;

CREATE OR REPLACE FUNCTION count_user_answer_now(p_user integer, p_pick boolean, p_was boolean, p_now boolean,
  p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM count_user_answers(ARRAY[p_user], ARRAY[p_pick], ARRAY[p_was], ARRAY[p_now], ARRAY[p_at]);
END $$;

CREATE OR REPLACE FUNCTION count_answers_after() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c record;
BEGIN
  PERFORM set_config('civic.answer_counts_after', '', true);
  SELECT array_agg((e->>'user')::integer) AS people, array_agg((e->>'pick')::boolean) AS picks,
      array_agg((e->>'was')::boolean) AS was, array_agg((e->>'now')::boolean) AS now,
      array_agg((e->>'at')::timestamptz) AS at INTO c
    FROM jsonb_array_elements(coalesce(nullif(current_setting('civic.answer_counts', true), ''), '[]')::jsonb) AS k(e);
  IF c.people IS NOT NULL THEN PERFORM count_user_answers(c.people, c.picks, c.was, c.now, c.at); END IF;
  PERFORM set_config('civic.answer_counts', '', true);
END $$;
${CAST_LIKERT_MOVES}
${CAST_PICK_MOVES}
${alone('cast_likert', LIKERT_PARAMETERS, 'question_votes', LIKERT_ARGUMENTS)}
${alone('cast_pick', PICK_PARAMETERS, 'question_choice_votes', PICK_ARGUMENTS)}
${group('cast_likert', LIKERT_ARRAYS, 'question_votes', LIKERT_NAMES, 'ORDER BY u.question, u.person, u.n')}
${group('cast_pick', PICK_ARRAYS, 'question_choice_votes', PICK_NAMES, 'LEFT JOIN question_choices c ON c.id = u.choice ORDER BY c.question_id, u.person, u.n')}
`,
  )
}

export async function down(): Promise<void> {
  throw new Error('2026-11-30-058-answer-moves-at-the-group-end cannot be undone: restore a backup taken before it')
}
