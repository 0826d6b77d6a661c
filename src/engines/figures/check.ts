import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Db } from '../../db/types.ts'
import { storedFigureRows } from './figures.repository.ts'
import { statisticsColumns } from '../statistics/statistics-fields.ts'
import { recomputeStatistics } from './recompute.ts'
import { foldFigureDeltas } from '../../db/answer-gate.ts'
import { USER_ANSWER_COUNTERS, USER_COUNTERS } from './recompute.repository.ts'

/**
 * Every stored figure and counter, compared with what `recomputeStatistics` makes of the raw rows. The
 * recomputation runs in a transaction that is rolled back, so checking changes nothing.
 */
const DIRECT = statisticsColumns('direct')
const LIQUID = statisticsColumns('liquid')

export const STORED_FIGURES: Record<string, string[]> = {
  questions: [
    ...DIRECT,
    ...LIQUID,
    'polarisation',
    'count_comments',
    'count_comments_info',
    'count_comments_reason',
    'count_comments_suggestion',
    'unreleased_votes_count',
  ],
  question_choices: [...DIRECT, ...LIQUID, 'polarisation'],
  question_tags: DIRECT,
  question_links: DIRECT,
  question_question_connections: DIRECT,
  comments: ['direct_maximum', 'direct_minimum', 'public_direct_maximum', 'public_direct_minimum', 'report_count'],
  users: USER_COUNTERS,
  user_answer_counts: [...USER_ANSWER_COUNTERS],
  tags: ['followers_count', 'questions_count', 'votes_count', 'unreleased_votes_count'],
  areas: ['members_count', 'question_count'],
  groups: ['member_count'],
  question_collections: ['question_count', 'item_count'],
}

export interface FigureDifference {
  table: string
  id: number
  column: string
  stored: unknown
  recomputed: unknown
}

type Snapshot = Map<string, Map<number, Record<string, unknown>>>

async function snapshot(db: Db, figures: Record<string, string[]>): Promise<Snapshot> {
  const out: Snapshot = new Map()
  for (const [table, columns] of Object.entries(figures)) {
    const rows = await storedFigureRows(db, table, columns)
    out.set(table, new Map(rows.map((row: Record<string, unknown>) => [Number(row.id), row])))
  }
  return out
}

const comparable = (value: unknown) => (value instanceof Date ? value.getTime() : value)
class RolledBack extends Error {}

export async function storedFigureDifferences(
  db: Kysely<Database>,
  figures: Record<string, string[]> = STORED_FIGURES,
): Promise<FigureDifference[]> {
  let stored: Snapshot | null = null
  let recomputed: Snapshot | null = null
  for (let attempt = 1; ; attempt++) {
    try {
      // One snapshot for both readings, so that concurrent writes cannot show up as differences. The deltas that
      // snapshot holds are folded first (and rolled back with the rest); a fold committed elsewhere since the
      // snapshot makes that fail, and the check starts again.
      await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          await foldFigureDeltas(trx, true)
          stored = await snapshot(trx, figures)
          await recomputeStatistics(trx, { closeAnswers: false })
          recomputed = await snapshot(trx, figures)
          throw new RolledBack()
        })
    } catch (error) {
      if (error instanceof RolledBack) break
      if ((error as { code?: string }).code === '40001' && attempt < 5) continue
      throw error
    }
  }
  const differences: FigureDifference[] = []
  for (const [table, rows] of recomputed! as Snapshot) {
    for (const [id, row] of rows) {
      const before = (stored! as Snapshot).get(table)!.get(id)
      for (const column of figures[table]) {
        if (comparable(before?.[column]) !== comparable(row[column]))
          differences.push({ table, id, column, stored: before?.[column], recomputed: row[column] })
      }
    }
  }
  return differences
}
