import type { Kysely } from 'kysely'
import {
  counterRefreshes,
  likertCountRows,
  likertSources,
  storeLikertColumns,
  type CountRow,
  type LikertSource,
} from './recompute.repository.ts'
import type { Database } from '../../db/database.ts'
import { foldFigureDeltas, lockQuestionAnswers } from '../../db/answer-gate.ts'
import { emptyFamily, storedCounts, type FamilyTally } from '../statistics/tally.ts'

/**
 * Rebuilds every stored figure and counter from the raw rows: the likert families of questions,
 * choices, question-tags, links and question connections; comment counts and comment vote tallies;
 * the counters of users (and their public_* twins over public answers only, which others see), tags,
 * areas, groups and collections. Counting happens in SQL (one GROUP BY per source table); the counts are
 * written back in chunks, and the database derives the likert floats from them as on every write (migration 028).
 * Only rows whose stored values differ from the recomputed ones are written.
 *
 * Liquid counts add up each vote's `liquid_weight`; while no delegation is resolved every weight
 * is 1 and the liquid family equals the direct one.
 */
export async function recomputeStatistics(db: Kysely<Database>, options: RecomputeOptions = {}): Promise<void> {
  if (db.isTransaction) return recomputeAll(db, options)
  await db.transaction().execute((trx) => recomputeAll(trx, options))
}

export interface RecomputeOptions {
  /** Called after each of the steps (one per table and family of figures). */
  onStep?: (done: number, total: number) => void
  /** false: answers go on (a check, in one snapshot, that rolls back). */
  closeAnswers?: boolean
}

async function recomputeAll(db: Kysely<Database>, options: RecomputeOptions): Promise<void> {
  // Answers wait while the counts are rebuilt (a recount and a delta of one answer would both count it), and the
  // deltas not yet folded join the stored counts first.
  if (options.closeAnswers !== false) await lockQuestionAnswers(db, null)
  await foldFigureDeltas(db, true)
  const steps = [
    ...likertSources().map((target) => () => recomputeLikert(db, target)),
    ...counterRefreshes().map((refresh) => () => refresh(db)),
  ]
  for (let i = 0; i < steps.length; i++) {
    await steps[i]()
    options.onStep?.(i + 1, steps.length)
  }
}

function familyOfRow(row: CountRow, short: 'd' | 'l'): FamilyTally {
  const [c1, c2, c3, c4, c5] = [1, 2, 3, 4, 5].map((v) => Number(row[`${short}${v}`]))
  return { counts: [c1, c2, c3, c4, c5], skipped: Number(row[`${short}skip`]) }
}

/** Reads the counts behind every row of the target and writes back the rows whose stored counts differ. */
async function recomputeLikert(db: Kysely<Database>, target: LikertSource): Promise<void> {
  const columns = Object.keys(storedCounts({ direct: emptyFamily(), liquid: target.liquid ? emptyFamily() : null }))
  const rows = await likertCountRows(db, target, columns)
  const ids: number[] = []
  const arrays: number[][] = columns.map(() => [])
  for (const row of rows) {
    const stored = storedCounts({ direct: familyOfRow(row, 'd'), liquid: target.liquid ? familyOfRow(row, 'l') : null })
    const values = columns.map((column) => stored[column])
    if (values.every((v, i) => v === Number(row[`stored_${columns[i]}`]))) continue
    ids.push(Number(row.id))
    values.forEach((v, i) => arrays[i].push(v))
  }
  await storeLikertColumns(db, target.table, columns, ids, arrays)
}
