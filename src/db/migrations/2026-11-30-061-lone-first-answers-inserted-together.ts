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
import {
  alone,
  BEFORE_FIRST_INSERT,
  CAST_LIKERT_MOVES,
  CAST_PICK_MOVES,
  group,
  type LoneAnswers,
} from './2026-11-30-059-answer-statements-halved.ts'

/** What a first answer writes in each column of its table (all but the id), as the casts insert it. */
const ANSWER_ROW: Record<string, string> = {
  user_id: 'p_user',
  value: 'p_value',
  skipped: 'p_value IS NULL',
  private: 'is_private',
  liquid_weight: 'weight',
  collection_id: 'p_collection',
  analytics_interface: 'p_interface',
  analytics_os: 'p_os',
  analytics_browser: 'p_browser',
  analytics_parent_url: 'p_parent_url',
  analytics_location: 'p_location',
  created_at: 'rules.at',
  modified_at: 'rules.at',
}
const LIKERT_ROW = { question_id: 'p_question', ...ANSWER_ROW, importance: 'p_importance' }
const PICK_ROW = { question_id: 'qid', choice_id: 'p_choice', ...ANSWER_ROW }

/** Replaces the one place `anchor` stands in a function's text (a text that changed under it fails here, not later). */
function insertAt(text: string, anchor: string, replacement: string): string {
  const at = text.indexOf(anchor)
  if (at < 0 || text.indexOf(anchor, at + 1) >= 0) throw new Error(`expected one ${anchor.slice(0, 40)}…`)
  return text.slice(0, at) + replacement + text.slice(at + anchor.length)
}

/**
 * A cast that, when its caller says so, leaves the insert of a first answer reaching nobody else ('own') to its
 * caller: the row comes back whole but for its id, with the moves a written one returns (its block of one moves
 * nothing else), as outcome 'lone'.
 */
function movesLeavingLoneInserts(text: string, call: string, parameters: string, row: Record<string, string>, moved: string) {
  const header = insertAt(text, `${call}(${parameters}, `, `${call}(${parameters}, p_lone_later boolean, `)
  const fields = Object.entries(row)
    .map(([column, value]) => `vote.${column} := ${value};`)
    .join('\n      ')
  return insertAt(
    header,
    BEFORE_FIRST_INSERT,
    `IF reach = 'own' AND p_lone_later THEN
      ${fields}
      ${moved}
      RETURN;
    END IF;
    ${BEFORE_FIRST_INSERT}`,
  )
}

const LIKERT_MOVES = movesLeavingLoneInserts(
  CAST_LIKERT_MOVES,
  'cast_likert_moves',
  LIKERT_PARAMETERS,
  LIKERT_ROW,
  `outcome := 'lone'; carried := 0; was := NULL; tag_delta := 1;
      moved_questions := ARRAY[p_question, p_question]; moved_choices := ARRAY[NULL, NULL]::integer[];
      moved_values := ARRAY[p_value, NULL]; moved_direct := ARRAY[1, 0]; moved_liquid := ARRAY[weight, 0];`,
)
const PICK_MOVES = movesLeavingLoneInserts(
  CAST_PICK_MOVES,
  'cast_pick_moves',
  PICK_PARAMETERS,
  PICK_ROW,
  `outcome := 'lone'; carried := 0; was := NULL; tag_delta := 0;
      moved_questions := ARRAY[qid, qid]; moved_choices := ARRAY[NULL, p_choice];
      moved_values := ARRAY[NULL, p_value]; moved_direct := ARRAY[0, 1]; moved_liquid := ARRAY[0, weight];`,
)

/**
 * A group's lone first answers, kept as they come and inserted in one statement: before the voter's next answer to
 * the same question in the group (which must find it), and at the end. The answer triggers that look for a kept block
 * or an unreleased answer stay still for them, as for one ('own' found there is none).
 */
function loneAnswers(table: string, row: Record<string, string>, question: string): LoneAnswers {
  const columns = Object.keys(row)
  const flush = (indent: string) =>
    `IF cardinality(lone) > 0 THEN
  setting := set_config('civic.answer_alone', 'on', true);
  FOR written IN WITH inserted AS (
      INSERT INTO ${table} (${columns.join(', ')})
      SELECT ${columns.map((column) => `l.${column}`).join(', ')} FROM unnest(lone) AS l RETURNING *)
    SELECT lone_n[l.ordinality] AS n, inserted AS vote FROM inserted
    JOIN unnest(lone) WITH ORDINALITY AS l ON l.question_id = inserted.question_id AND l.user_id = inserted.user_id
  LOOP
    n := written.n;
    outcome := 'written';
    carried := 0;
    vote := written.vote;
    RETURN NEXT;
  END LOOP;
  setting := set_config('civic.answer_alone', '', true);
  lone := '{}';
  lone_n := '{}';
END IF;`.replaceAll('\n', `\n${indent}`)
  return {
    declarations: `
  lone ${table}[] := '{}';
  lone_n bigint[] := '{}';
  last_question integer;
  last_person integer;
  setting text;
  written record;`,
    key: `, ${question} AS key`,
    beforeCast: `
    IF a.key = last_question AND a.person = last_person THEN
      ${flush('      ')}
    END IF;
    last_question := a.key;
    last_person := a.person;`,
    argument: ', true',
    tell: (told) => `IF m.outcome = 'lone' THEN
      lone := lone || m.vote;
      lone_n := lone_n || a.n;
    ELSE
      ${told.replaceAll('\n    ', '\n      ')}
    END IF;`,
    outcome: ", 'lone'",
    afterLoop: `
  ${flush('  ')}`,
  }
}

/**
 * A group's first answers that reach nobody else's rows (public, of someone no delegation touches, no unreleased
 * answer of theirs: the common answer of a broadcast or a survey) were one insert each, and an insert's statement
 * starts its executor, opens the table's indexes, reads its CHECK constraints and its triggers' conditions back from
 * their text and plans them: about half of its 44 µs. They are now one insert for the group. Everything else keeps
 * its order: each cast still takes its locks and reads its rules in the group's order, the lone rows are written
 * before anything reads them (the voter's next answer to the question, the moves at the group's end), and their
 * outcomes are those of one. Expand only: the previous release calls cast_likert, cast_pick and the groups, whose
 * parameters and results are the same; only the casts' bodies, which it never names, take a parameter more.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
DROP FUNCTION cast_likert_moves(${LIKERT_PARAMETERS});
DROP FUNCTION cast_pick_moves(${PICK_PARAMETERS});
${LIKERT_MOVES}
${PICK_MOVES}
${alone('cast_likert', LIKERT_PARAMETERS, 'question_votes', `${LIKERT_ARGUMENTS}, false`)}
${alone('cast_pick', PICK_PARAMETERS, 'question_choice_votes', `${PICK_ARGUMENTS}, false`)}
${group('cast_likert', LIKERT_ARRAYS, 'question_votes', LIKERT_NAMES, 'ORDER BY u.question, u.person, u.n', loneAnswers('question_votes', LIKERT_ROW, 'u.question'))}
${group(
  'cast_pick',
  PICK_ARRAYS,
  'question_choice_votes',
  PICK_NAMES,
  'LEFT JOIN question_choices c ON c.id = u.choice ORDER BY c.question_id, u.person, u.n',
  loneAnswers('question_choice_votes', PICK_ROW, 'c.question_id'),
)}
`,
  )
}

export async function down(): Promise<void> {
  throw new Error('2026-11-30-061-lone-first-answers-inserted-together cannot be undone: restore a backup taken before it')
}
