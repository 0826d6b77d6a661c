import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../../db/database.ts'
import { PublishedFigures, withFigures, type FigureSources } from '../../disclosure/figures.ts'
import { countColumns, type FamilyTally } from '../../engines/statistics/tally.ts'

const COUNT_NAMES = [...countColumns('direct'), ...countColumns('liquid')].map((_, i) => `c${i}`)

interface Row {
  kind: 'question' | 'choice' | 'tag' | 'pending' | 'correction' | 'tag_vote'
  question_id: number
  id: number | null
  value: number | null
  weight: number | null
  text: string | null
  store_number: number | null
  created_at: Date | null
  modified_at: Date | null
  [count: `c${number}`]: number | null
}

/** A choice as it is embedded in a question, with its published figures. */
export type PublishedChoice = {
  id: number
  question_id: number
  text: string
  store_number: number
  created_at: Date
  modified_at: Date
} & Record<string, number>

function family(row: Row, from: number): FamilyTally {
  const [c1, c2, c3, c4, c5, skipped] = COUNT_NAMES.slice(from, from + 6).map((name) => Number(row[name as `c${number}`]))
  return { counts: [c1, c2, c3, c4, c5], skipped }
}

/**
 * The published figures of these questions, their choices and question-tags, in one statement (one snapshot, so
 * the counts and what is taken off them agree): the stored counts with the deltas not yet folded, the corrections of each question's unreleased
 * private answers (migration 038, at most k−1 people each), and k private tag votes of each question-tag, through
 * the partial index on private tag votes.
 */
export async function loadPublishedFigures(db: Kysely<Database>, questionIds: number[], k: number): Promise<PublishedFigures> {
  return (await loadWithChoices(db, questionIds, k)).figures
}

/** Choices or question-tags with the figures everyone sees: one statement for their questions. */
export async function withPublishedFigures<Row extends { id: number; question_id: number }>(
  db: Kysely<Database>,
  rows: Row[],
  kind: 'choice' | 'questionTag',
  k: number,
): Promise<Row[]> {
  if (rows.length === 0) return rows
  const figures = await loadPublishedFigures(
    db,
    rows.map((row) => row.question_id),
    k,
  )
  return rows.map((row) => withFigures(row, figures[kind](row.id)))
}

/** The same statement, with the questions' choices (in their order) carrying their published figures. */
export async function loadWithChoices(
  db: Kysely<Database>,
  questionIds: number[],
  k: number,
): Promise<{ figures: PublishedFigures; choices: PublishedChoice[] }> {
  const ids = [...new Set(questionIds)]
  if (ids.length === 0) return fromSources([], k)
  const { rows } = await figureSources(ids, k).execute(db)
  return fromSources(rows, k)
}

/**
 * The figures' sources of these (distinct) questions as one query, to run alone or inside another statement: the
 * database's question_figure_sources (migration 060), planned once per connection.
 */
export function figureSources(ids: number[], k: number): RawBuilder<Row> {
  return sql<Row>`SELECT * FROM question_figure_sources(${ids}::integer[], ${k}::integer)`
}

/** The same from figureSources' rows aggregated as json (timestamps as text, read as the drivers read them). */
export function figureSourcesFromJson(json: unknown, k: number): { figures: PublishedFigures; choices: PublishedChoice[] } {
  const rows = ((json ?? []) as Row[]).map((row) => ({
    ...row,
    created_at: row.created_at === null ? null : new Date(row.created_at as unknown as string),
    modified_at: row.modified_at === null ? null : new Date(row.modified_at as unknown as string),
  }))
  return fromSources(rows, k)
}

/** The stored counts plus the answers' deltas not yet folded into them (pending_figure_counts, migration 046). */
function withPending(rows: Row[]): Row[] {
  const pending = new Map<string, Row>()
  for (const row of rows) if (row.kind === 'pending') pending.set(`${row.question_id}:${row.id}`, row)
  if (pending.size === 0) return rows
  return rows.map((row) => {
    const delta =
      row.kind === 'question'
        ? pending.get(`${row.id}:null`)
        : row.kind === 'choice'
          ? pending.get(`${row.question_id}:${row.id}`)
          : undefined
    if (!delta) return row
    const sum = { ...row }
    for (const name of COUNT_NAMES) sum[name as `c${number}`] = Number(row[name as `c${number}`]) + Number(delta[name as `c${number}`])
    return sum
  })
}

function fromSources(rows: Row[], k: number): { figures: PublishedFigures; choices: PublishedChoice[] } {
  const sources: FigureSources = { questions: [], choices: [], questionTags: [], corrections: [], tagVotes: [] }
  const choiceRows: Row[] = []
  for (const row of withPending(rows)) {
    if (row.kind === 'pending') continue
    const value = row.value === null ? null : Number(row.value)
    if (row.kind === 'correction') {
      sources.corrections.push({ question_id: row.question_id, choice_id: row.id, value, direct: Number(row.c0), liquid: Number(row.c1) })
    } else if (row.kind === 'tag_vote') {
      sources.tagVotes.push({ question_tag_id: row.id!, value: value! })
    } else if (row.kind === 'tag') {
      sources.questionTags.push({ id: row.id!, tally: { direct: family(row, 0), liquid: null } })
    } else {
      const target = row.kind === 'question' ? sources.questions : sources.choices
      target.push({ id: row.id!, tally: { direct: family(row, 0), liquid: family(row, 6) } })
      if (row.kind === 'choice') choiceRows.push(row)
    }
  }
  const figures = new PublishedFigures(sources, k)
  const choices = choiceRows
    .sort((a, b) => a.question_id - b.question_id || a.store_number! - b.store_number!)
    .map(
      (row) =>
        ({
          id: row.id!,
          question_id: row.question_id,
          text: row.text!,
          store_number: row.store_number!,
          created_at: row.created_at!,
          modified_at: row.modified_at!,
          ...figures.choice(row.id!),
        }) as PublishedChoice,
    )
  return { figures, choices }
}
