import { countColumns, storedCounts, type Tally } from '../statistics/tally.ts'
import { untyped, type Db } from '../../db/types.ts'

/** The rows that carry stored likert figures: a tally's counts are read under lock and stored with the figures. */
export type LikertTarget = 'questions' | 'question_choices' | 'question_tags' | 'question_links' | 'question_question_connections'

/** Questions and choices carry the liquid family and polarisation; the others only the direct family. */
export function carriesLiquid(target: LikertTarget): boolean {
  return target === 'questions' || target === 'question_choices'
}

/** The count columns to read under lock for a tally of the target. */
export function tallyColumns(target: LikertTarget): string[] {
  return carriesLiquid(target) ? [...countColumns('direct'), ...countColumns('liquid')] : countColumns('direct')
}

/** The update that stores a tally's counts (the figures are generated from them), not yet run. */
export function storingTally(db: Db, target: LikertTarget, id: number, tally: Tally) {
  return untyped(db).updateTable(target).set(storedCounts(tally)).where('id', '=', id)
}

/** Every row of the table with the given columns, in id order. */
export async function storedFigureRows(db: Db, table: string, columns: string[]): Promise<Record<string, unknown>[]> {
  return untyped(db)
    .selectFrom(table)
    .select(['id', ...columns])
    .orderBy('id')
    .execute()
}
