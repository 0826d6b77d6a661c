import { sql, type RawBuilder } from 'kysely'
import type { OrderingFields } from '../../db/ordering.ts'
import { LEVEL_NAMES } from '../../engines/statistics/likert.ts'

/**
 * Ordering fields that sort on the published figures (src/disclosure/figures.ts), not the stored ones, which count
 * private answers below k: sorted on those, rows whose published figures tie would come in an order telling a
 * private answer. Each key is a correlated subquery over the stored counts, with the answers' deltas not yet folded
 * (pending_figure_counts, migration 046), minus what withheld_answers /
 * withheld_tag_votes (migration 022) leave out, through the likert_* functions, which are likert.ts in SQL. Only
 * a listing sorted by a figure pays for it: at most k index entries read per row.
 */
export type FigureTarget = 'question' | 'choice' | 'question_tag'

const TARGETS: Record<
  FigureTarget,
  { table: string; withheld: (k: number) => RawBuilder<unknown>; pending: string | null; liquid: boolean }
> = {
  question: {
    table: 'questions',
    withheld: (k) => sql`withheld_answers(questions.id, ${k}::integer, NULL)`,
    pending: 'p.question_id = questions.id AND p.choice_id IS NULL',
    liquid: true,
  },
  choice: {
    table: 'question_choices',
    withheld: (k) => sql`withheld_answers(question_choices.question_id, ${k}::integer, question_choices.id)`,
    pending: 'p.question_id = question_choices.question_id AND p.choice_id = question_choices.id',
    liquid: true,
  },
  question_tag: {
    table: 'question_tags',
    withheld: (k) => sql`withheld_tag_votes(question_tags.id, ${k}::integer)`,
    pending: null,
    liquid: false,
  },
}

const FUNCTIONS = { sum: 'likert_sum', value: 'likert_value', heat: 'likert_heat', consensus: 'likert_consensus' } as const

/** The figure fields of one family, as SQL over the published level counts (`w` is the withheld row). */
function familyKeys(table: string, prefix: 'direct' | 'liquid', pending: boolean): Record<string, string> {
  const w = prefix === 'direct' ? 'd' : 'l'
  const count = (column: string) => (pending ? `${table}.${column} + coalesce(p.${column}, 0)` : `${table}.${column}`)
  const levels = LEVEL_NAMES.map((level, i) => `greatest(0, ${count(`${prefix}_${level}`)} - w.${w}${i + 1})`)
  const counts = levels.join(', ')
  const keys: Record<string, string> = {
    [`${prefix}_vote_count`]: `(${levels.join(' + ')})`,
    [`${prefix}_skipped`]: `greatest(0, ${count(`${prefix}_skipped`)} - w.${w}s)`,
  }
  LEVEL_NAMES.forEach((level, i) => (keys[`${prefix}_${level}`] = levels[i]))
  for (const [field, fn] of Object.entries(FUNCTIONS)) keys[`${prefix}_${field}`] = `${fn}(${counts})`
  if (prefix === 'liquid') keys.polarisation = `likert_polarisation(${counts})`
  return keys
}

/** Built once per target and k: every listing asks for them, whichever field it sorts on. */
const built = new Map<string, OrderingFields>()

/** Every figure field of the target (both families and polarisation where it has them), sorting on the published figures. */
export function publishedFigureOrdering(target: FigureTarget, k: number): OrderingFields {
  const key = `${target}:${k}`
  let fields = built.get(key)
  if (!fields) built.set(key, (fields = Object.freeze(buildFigureOrdering(target, k))))
  return fields
}

function buildFigureOrdering(target: FigureTarget, k: number): OrderingFields {
  const { table, withheld, pending, liquid } = TARGETS[target]
  const keys = { ...familyKeys(table, 'direct', pending !== null), ...(liquid ? familyKeys(table, 'liquid', pending !== null) : {}) }
  const joined = pending === null ? sql`` : sql` LEFT JOIN pending_figure_counts AS p ON ${sql.raw(pending)}`
  const fields: OrderingFields = {}
  for (const [field, key] of Object.entries(keys)) fields[field] = sql`(SELECT ${sql.raw(key)} FROM ${withheld(k)} AS w${joined})`
  return fields
}
