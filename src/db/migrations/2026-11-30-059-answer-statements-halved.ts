import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'
import {
  LIKERT_ARGUMENTS,
  LIKERT_ARRAYS,
  LIKERT_NAMES,
  LIKERT_PARAMETERS,
  PICK_ARGUMENTS,
  PICK_ARRAYS,
  PICK_NAMES,
  PICK_PARAMETERS,
} from './2026-11-30-058-answer-moves-at-the-group-end.ts'

/** What a cast moves besides its own rows, returned for its caller to write (as 058), now one row, not a set. */
const moves = (row: string) => `OUT outcome text, OUT carried integer, OUT vote ${row}, OUT was boolean,
  OUT moved_questions integer[], OUT moved_choices integer[], OUT moved_values smallint[], OUT moved_direct integer[], OUT moved_liquid integer[],
  OUT tag_delta integer`
const refused = (name: string) => `BEGIN outcome := ${name}; carried := 0; tag_delta := 0; RETURN; END;`
const PRIVACY = `IF p_private IS NULL THEN
    SELECT u.default_private INTO is_private FROM users u WHERE u.id = p_user;
  ELSE
    is_private := p_private;
  END IF;`

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
    RETURN;`
}

// A statement starts an executor; an assignment of an expression does not. Hence blocks of one, settings and calls
// returning one row are assigned.
const chooseBlock = (question: string, pick: boolean) => `IF reach = 'chain' THEN
    SELECT * INTO leaf FROM liquid_leaf_block(${question}, p_user, ${pick});
    blk := ROW(0, liquid_eligible(p_user), leaf.vote_table, leaf.vote_id, leaf.target_id, leaf.value, leaf.skipped)::answer_block;
  ELSIF reach <> 'own' AND held.id IS NULL THEN
    SELECT b.intree, b.eligible, b.vote_table, b.vote_id, b.target_id, b.value, b.skipped INTO blk
    FROM liquid_block(${question}, p_user) b;
  ELSE
    blk := ROW(0, true, NULL, NULL, NULL, NULL, NULL)::answer_block;
  END IF;`
// A first answer that reaches nobody else's rows ('own': no unreleased answer of theirs, no chain above them) moves
// no kept block and settles no batch: the triggers that would look are told so.
export const BEFORE_FIRST_INSERT = `IF reach = 'chain' THEN setting := set_config('civic.liquid_chain', 'on', true);
    ELSIF reach = 'own' THEN setting := set_config('civic.answer_alone', 'on', true);
    END IF;`
const afterFirstInsert = (question: string) => `IF reach = 'chain' THEN
      PERFORM liquid_blocks_follow(${question}, p_user, leaf.path, leaf.looped, -1);
      setting := set_config('civic.liquid_chain', '', true);
    ELSIF reach = 'own' THEN
      setting := set_config('civic.answer_alone', '', true);
    END IF;`
const DECLARATIONS = `rules record;
  blk answer_block;
  leaf record;
  reach text;
  is_private boolean;
  weight integer;
  setting text;`

export const CAST_LIKERT_MOVES = `
CREATE FUNCTION cast_likert_moves(${LIKERT_PARAMETERS}, ${moves('question_votes')})
RETURNS record LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  ${DECLARATIONS}
  held question_votes;
BEGIN
  rules := lock_answerable_question(p_question, p_user, p_staff, false, p_collection);
  IF rules.refusal IS NOT NULL THEN ${refused('rules.refusal')} END IF;
  ${PRIVACY}
  SELECT * INTO held FROM question_votes v WHERE v.question_id = p_question AND v.user_id = p_user FOR UPDATE;
  reach := lock_answer_reach(p_question, p_user, is_private, held.private, held.liquid_weight);
  ${chooseBlock('p_question', false)}

  IF held.id IS NULL THEN
    -- A first answer: its block (themselves and the unanswered people whose chains pass through them) leaves the
    -- representative it counted at, and counts here while the answer is public.
    weight := CASE WHEN NOT is_private AND blk.eligible THEN 1 + blk.intree ELSE 1 END;
    ${BEFORE_FIRST_INSERT}
    INSERT INTO question_votes (question_id, user_id, value, skipped, private, liquid_weight, collection_id, importance,
      analytics_interface, analytics_os, analytics_browser, analytics_parent_url, analytics_location, created_at, modified_at)
    VALUES (p_question, p_user, p_value, p_value IS NULL, is_private, weight, p_collection, p_importance,
      p_interface, p_os, p_browser, p_parent_url, p_location, rules.at, rules.at)
    RETURNING * INTO vote;
    ${afterFirstInsert('p_question')}
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
  RETURNING * INTO vote;
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

export const CAST_PICK_MOVES = `
CREATE FUNCTION cast_pick_moves(${PICK_PARAMETERS}, ${moves('question_choice_votes')})
RETURNS record LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  ${DECLARATIONS}
  qid integer;
  held question_choice_votes;
  rep_choice integer;
BEGIN
  SELECT c.question_id INTO qid FROM question_choices c WHERE c.id = p_choice;
  IF qid IS NULL THEN ${refused("'missing'")} END IF;
  rules := lock_answerable_question(qid, p_user, p_staff, true, p_collection);
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
    ${BEFORE_FIRST_INSERT}
    INSERT INTO question_choice_votes (question_id, choice_id, user_id, value, skipped, private, liquid_weight, collection_id,
      analytics_interface, analytics_os, analytics_browser, analytics_parent_url, analytics_location, created_at, modified_at)
    VALUES (qid, p_choice, p_user, p_value, p_value IS NULL, is_private, weight, p_collection,
      p_interface, p_os, p_browser, p_parent_url, p_location, rules.at, rules.at)
    RETURNING * INTO vote;
    ${afterFirstInsert('qid')}
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
  RETURNING * INTO vote;
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

/** A cast alone, as 058: its moves written at once, its counters through count_user_answer. */
export const alone = (call: 'cast_likert' | 'cast_pick', parameters: string, row: string, args: string) => `
CREATE OR REPLACE FUNCTION ${call}(${parameters})
RETURNS TABLE(outcome text, carried integer, vote ${row})
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  m record;
BEGIN
  m := ${call}_moves(${args});
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

/** What a group does with the first answers that reach nobody else (migration 061); nothing here. */
export interface LoneAnswers {
  declarations: string
  /** The answer's question, selected as `key` beside each answer. */
  key: string
  beforeCast: string
  argument: string
  /** Tells the answer's outcome, given the statements that tell it as cast. */
  tell: (told: string) => string
  outcome: string
  afterLoop: string
}
const NO_LONE_ANSWERS: LoneAnswers = {
  declarations: '',
  key: '',
  beforeCast: '',
  argument: '',
  tell: (told) => told,
  outcome: '',
  afterLoop: '',
}

/**
 * A group, as 058, but each voter's default privacy read with the group's answers (the answers that leave it out take
 * it, as a cast alone does), each cast called by assignment, and its statements planned once per connection (the
 * arrays' lengths made a custom plan of each at every call: 6 % of a group's time).
 */
export const group = (
  call: 'cast_likert' | 'cast_pick',
  arrays: string,
  row: string,
  names: string[],
  from: string,
  lone: LoneAnswers = NO_LONE_ANSWERS,
) => {
  const args = names.map((name) => (name === 'private' ? 'coalesce(a.private, a.default_private)' : `a.${name}`))
  return `
CREATE OR REPLACE FUNCTION ${call}_group(${arrays})
RETURNS TABLE(n bigint, outcome text, carried integer, vote ${row})
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
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
  answered_at timestamptz[] := '{}';${lone.declarations}
BEGIN
  FOR a IN
    SELECT u.*, p.default_private${lone.key} FROM unnest(${names.map((name) => `p_${name}`).join(', ')})
      WITH ORDINALITY AS u(${names.join(', ')}, n)
    LEFT JOIN users p ON p.id = u.person
    ${from}
  LOOP${lone.beforeCast}
    m := ${call}_moves(${args.join(', ')}${lone.argument});
    ${lone.tell('n := a.n;\n    outcome := m.outcome;\n    carried := m.carried;\n    vote := m.vote;\n    RETURN NEXT;')}
    IF m.outcome IN ('written', 'replaced'${lone.outcome}) THEN
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
  END LOOP;${lone.afterLoop}
  PERFORM append_figure_deltas(questions, choices, answer_values, direct, liquid);
  -- Picks move no tag.
  IF cardinality(tag_questions) > 0 THEN PERFORM append_tag_vote_deltas(tag_questions, tag_deltas); END IF;
  PERFORM count_user_answers(people, array_fill(${call === 'cast_pick'}, ARRAY[cardinality(people)]), was_private,
    now_private, answered_at);
END $$;`
}

const ALONE_SKIPS = `current_setting('civic.answer_alone', true) IS DISTINCT FROM 'on'`

/**
 * A first public answer of someone with no delegation ran about twelve statements in the database, each starting an
 * executor: now about seven. The casts return their one row (not a set) and are called, like the gate's rules, by
 * assignment; a block of one is assigned; a group reads its voters' default privacy in the statement that reads its
 * answers; and a first answer that reaches nobody else's rows (reach 'own') tells the row triggers that would look
 * for a kept block on its chain or an unreleased answer of theirs (neither exists: that is what 'own' found) to stay
 * still, through a setting their WHEN reads. Expand only: the previous release's calls are the same functions, whose
 * results keep their columns, and it never sets the setting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE TYPE answer_block AS (intree integer, eligible boolean, vote_table text, vote_id integer, target_id integer,
  value smallint, skipped boolean);

DROP TRIGGER question_votes_liquid_blocks ON question_votes;
CREATE TRIGGER question_votes_liquid_blocks AFTER INSERT OR DELETE ON question_votes FOR EACH ROW
  WHEN (${ALONE_SKIPS}) EXECUTE FUNCTION liquid_blocks_on_answer();
DROP TRIGGER question_choice_votes_liquid_blocks ON question_choice_votes;
CREATE TRIGGER question_choice_votes_liquid_blocks AFTER INSERT OR DELETE ON question_choice_votes FOR EACH ROW
  WHEN (${ALONE_SKIPS}) EXECUTE FUNCTION liquid_blocks_on_answer();
DROP TRIGGER question_votes_unreleased_tag_votes ON question_votes;
CREATE TRIGGER question_votes_unreleased_tag_votes AFTER INSERT OR DELETE ON question_votes FOR EACH ROW
  WHEN (${ALONE_SKIPS}) EXECUTE FUNCTION follow_answer_unreleased_tag_votes();

DROP FUNCTION cast_likert_moves(${LIKERT_PARAMETERS});
DROP FUNCTION cast_pick_moves(${PICK_PARAMETERS});
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
  throw new Error('2026-11-30-059-answer-statements-halved cannot be undone: restore a backup taken before it')
}
