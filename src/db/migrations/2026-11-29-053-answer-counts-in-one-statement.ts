import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum', 'skipped']
const COUNTS = [...LEVELS.map((l) => `direct_${l}`), ...LEVELS.map((l) => `liquid_${l}`)].join(', ')
/** Two levels' deltas summed column by column, as likert_count_deltas names them. */
const sums = (a: string, b: string | null) =>
  ['c1', 'c2', 'c3', 'c4', 'c5', 'skipped'].map((c) => (b ? `${a}.${c} + ${b}.${c}` : `${a}.${c}`)).join(', ')

const LIKERT_HEAD = `CREATE OR REPLACE FUNCTION move_likert_counts(p_question integer, p_a smallint, p_direct_a integer, p_liquid_a integer,
  p_b smallint, p_direct_b integer, p_liquid_b integer) RETURNS void LANGUAGE plpgsql AS $$`
const CHOICE_HEAD = `CREATE OR REPLACE FUNCTION move_choice_counts(p_choice integer, p_value smallint, p_direct integer, p_liquid integer)
RETURNS void LANGUAGE plpgsql AS $$`

/** The counters an answer moves, the same in both versions of count_user_answer. */
const COUNTERS = `count_question_votes = count_question_votes + CASE WHEN p_pick THEN 0 ELSE answers END,
    count_choice_votes = count_choice_votes + CASE WHEN p_pick THEN answers ELSE 0 END,
    count_votes = count_votes + answers,
    public_count_question_votes = public_count_question_votes + CASE WHEN p_pick THEN 0 ELSE shown END,
    public_count_choice_votes = public_count_choice_votes + CASE WHEN p_pick THEN shown ELSE 0 END,
    public_count_votes = public_count_votes + shown`
const COUNT_HEAD = `CREATE OR REPLACE FUNCTION count_user_answer(p_user integer, p_pick boolean, p_was boolean, p_now boolean, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  answers integer := (p_now IS NOT NULL)::integer - (p_was IS NOT NULL)::integer;
  shown integer := coalesce((NOT p_now)::integer, 0) - coalesce((NOT p_was)::integer, 0);`
const LOCK = `IF p_now IS NULL OR (NOT p_was AND p_now) THEN
    PERFORM FROM user_answer_counts WHERE id = p_user FOR NO KEY UPDATE;
  END IF;`
const LATEST = (privacy: string) => `greatest(
      (SELECT max(modified_at) FROM question_votes WHERE user_id = p_user${privacy}),
      (SELECT max(modified_at) FROM question_choice_votes WHERE user_id = p_user${privacy}))`

/**
 * Every answer's count deltas and counters in one statement each. `move_likert_counts` read its four level deltas
 * in four statements before its insert, `move_choice_counts` two; PostgreSQL inlines `likert_count_deltas` in the
 * insert's FROM instead. The update of `count_user_answer` held four sub-selects (the latest answer times, needed only
 * when an answer is withdrawn or goes private) whose plans started with every answer; they run before it now, only
 * then, after the row's lock as before. 0.19 → 0.17 ms of server time a first answer, 0.17 → 0.14 a replaced one
 * (2,800 answers to one question in one transaction, demo seed, three runs each). Signatures and effects unchanged.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
${LIKERT_HEAD}
BEGIN
  INSERT INTO question_figure_deltas (question_id, ${COUNTS})
  SELECT p_question, ${sums('da', 'db')}, ${sums('la', 'lb')}
  FROM likert_count_deltas(p_a, p_direct_a) AS da, likert_count_deltas(p_b, p_direct_b) AS db,
    likert_count_deltas(p_a, p_liquid_a) AS la, likert_count_deltas(p_b, p_liquid_b) AS lb;
END $$;

${CHOICE_HEAD}
BEGIN
  INSERT INTO question_figure_deltas (question_id, choice_id, ${COUNTS})
  SELECT c.question_id, p_choice, ${sums('d', null)}, ${sums('l', null)}
  FROM question_choices c, likert_count_deltas(p_value, p_direct) AS d, likert_count_deltas(p_value, p_liquid) AS l
  WHERE c.id = p_choice;
END $$;

${COUNT_HEAD}
  latest timestamptz;
  latest_public timestamptz;
BEGIN
  ${LOCK}
  IF p_now IS NULL THEN latest := ${LATEST('')}; END IF;
  IF NOT p_was AND p_now IS DISTINCT FROM false THEN latest_public := ${LATEST(' AND NOT private')}; END IF;
  UPDATE user_answer_counts SET
    ${COUNTERS},
    last_answer_time = CASE WHEN p_now IS NOT NULL THEN greatest(last_answer_time, p_at) ELSE latest END,
    public_last_answer_time = CASE
      WHEN NOT p_now THEN greatest(public_last_answer_time, p_at)
      WHEN NOT p_was THEN latest_public
      ELSE public_last_answer_time END
  WHERE id = p_user;
END $$;
`,
  )
}

/** The bodies of migrations 046 and 051 back. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
${LIKERT_HEAD}
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
  INSERT INTO question_figure_deltas (question_id, ${COUNTS})
  VALUES (p_question, ${sums('da', 'db')}, ${sums('la', 'lb')});
END $$;

${CHOICE_HEAD}
DECLARE
  d record;
  l record;
BEGIN
  SELECT * INTO d FROM likert_count_deltas(p_value, p_direct);
  SELECT * INTO l FROM likert_count_deltas(p_value, p_liquid);
  INSERT INTO question_figure_deltas (question_id, choice_id, ${COUNTS})
  SELECT c.question_id, p_choice, ${sums('d', null)}, ${sums('l', null)}
  FROM question_choices c WHERE c.id = p_choice;
END $$;

${COUNT_HEAD}
BEGIN
  ${LOCK}
  UPDATE user_answer_counts SET
    ${COUNTERS},
    last_answer_time = CASE WHEN p_now IS NOT NULL THEN greatest(last_answer_time, p_at) ELSE ${LATEST('')} END,
    public_last_answer_time = CASE
      WHEN NOT p_now THEN greatest(public_last_answer_time, p_at)
      WHEN NOT p_was THEN ${LATEST(' AND NOT private')}
      ELSE public_last_answer_time END
  WHERE id = p_user;
END $$;
`,
  )
}
