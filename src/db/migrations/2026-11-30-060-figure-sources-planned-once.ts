import type { Kysely } from 'kysely'
import { runScript } from '../script.ts'

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum', 'skipped']
const DIRECT = LEVELS.map((level) => `direct_${level}`)
const LIQUID = LEVELS.map((level) => `liquid_${level}`)
const counts = (columns: string[]) => columns.map((column, i) => `${column} AS c${i}`).join(', ')
const none = (n: number) => Array.from({ length: n }, () => 'NULL::integer').join(', ')
const NO_CHOICE = 'NULL::text, NULL::integer, NULL::timestamptz, NULL::timestamptz'

/**
 * The published figures' sources of some questions (their stored counts and choices', the deltas not yet folded, the
 * question-tags' counts, the corrections of unreleased private answers, k private tag votes each) were one statement
 * sent by the service, parsed and planned at every call: 0.3 to 0.7 ms of planning beside about 0.6 ms of work, on
 * every read of a question's figures (a next question, a listing, a live update). As a function its plan is made
 * once per connection; it stays one statement, so everything it reads comes from one snapshot. Expand only: a new
 * function the previous release does not call.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runScript(
    db,
    `
CREATE FUNCTION question_figure_sources(p_ids integer[], p_k integer)
RETURNS TABLE(kind text, question_id integer, id integer, ${Array.from({ length: 12 }, (_, i) => `c${i} integer`).join(', ')},
  value smallint, weight integer, text text, store_number integer, created_at timestamptz, modified_at timestamptz)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    SELECT 'question'::text, q.id, q.id, ${counts([...DIRECT, ...LIQUID])}, NULL::smallint, NULL::integer, ${NO_CHOICE}
      FROM questions q WHERE q.id = ANY(p_ids)
    UNION ALL
    SELECT 'choice', c.question_id, c.id, ${counts([...DIRECT, ...LIQUID])}, NULL, NULL, c.text, c.store_number,
        c.created_at, c.modified_at
      FROM question_choices c WHERE c.question_id = ANY(p_ids)
    UNION ALL
    SELECT 'pending', p.question_id, p.choice_id, ${counts([...DIRECT, ...LIQUID])}, NULL, NULL, ${NO_CHOICE}
      FROM pending_figure_counts p WHERE p.question_id = ANY(p_ids)
    UNION ALL
    SELECT 'tag', t.question_id, t.id, ${counts(DIRECT)}, ${none(6)}, NULL, NULL, ${NO_CHOICE}
      FROM question_tags t WHERE t.question_id = ANY(p_ids)
    UNION ALL
    SELECT 'correction', q.id, c.choice_id, c.direct, c.liquid, ${none(10)}, c.value, NULL, ${NO_CHOICE}
      FROM unnest(p_ids) AS q(id) CROSS JOIN LATERAL published_corrections(q.id) AS c
    UNION ALL
    SELECT 'tag_vote', qt.question_id, qt.id, ${none(12)}, v.value, 1, ${NO_CHOICE}
      FROM question_tags qt CROSS JOIN LATERAL (
        SELECT tv.value FROM question_tag_votes tv WHERE tv.question_tag_id = qt.id AND tv.private LIMIT p_k) AS v
      WHERE qt.question_id = ANY(p_ids);
END $$;
`,
  )
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await runScript(db, 'DROP FUNCTION question_figure_sources(integer[], integer);')
}
