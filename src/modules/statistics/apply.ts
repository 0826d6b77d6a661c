import {
  countColumns,
  directAfter,
  storedColumns,
  tallyFromRow,
  withMoves,
  type Answer,
  type Tally,
  type WeightMove,
} from './compute/tally.ts'
import { untyped, type Db } from '../../db/types.ts'

/**
 * Keeping stored figures exact on every write, in the writer's transaction: lock the row that carries
 * the figures, apply the answer removed and the answer added to its counts, and store the counts with
 * the figures recomputed from them. O(1) per write; the result is what `recomputeStatistics` computes
 * from the raw votes, to the bit, because both run `likertFigures` on the same counts.
 */
export type LikertTarget = 'questions' | 'question_choices' | 'question_tags' | 'question_links' | 'question_question_connections'

/** Questions and choices carry the liquid family and polarisation; the others only the direct family. */
export function carriesLiquid(target: LikertTarget): boolean {
  return target === 'questions' || target === 'question_choices'
}

/** The count columns to read under lock for a tally of the target. */
export function tallyColumns(target: LikertTarget): string[] {
  return carriesLiquid(target) ? [...countColumns('direct'), ...countColumns('liquid')] : countColumns('direct')
}

/**
 * Locks the rows in id order (so that writers touching several rows never deadlock) and reads their
 * tallies. Ids without a row are absent from the answer.
 */
export async function lockTallies(db: Db, target: LikertTarget, ids: number[]): Promise<Map<number, Tally>> {
  const unique = [...new Set(ids)].sort((a, b) => a - b)
  if (unique.length === 0) return new Map()
  const rows = await untyped(db)
    .selectFrom(target)
    .select(['id', ...tallyColumns(target)])
    .where('id', 'in', unique)
    .orderBy('id')
    .forUpdate()
    .execute()
  return new Map(rows.map((row: Record<string, unknown>) => [Number(row.id), tallyFromRow(row, carriesLiquid(target))]))
}

/** Stores a tally's counts and the figures derived from them. */
export async function storeTally(db: Db, target: LikertTarget, id: number, tally: Tally): Promise<void> {
  await untyped(db).updateTable(target).set(storedColumns(tally)).where('id', '=', id).execute()
}

/** Weight moved on a liquid family. */
export type LiquidMove = WeightMove

/**
 * Replaces `removed` by `added` in the direct counts of a row already locked (its tally read under that
 * lock) and stores the result. Either answer may be null: a new vote removes nothing, a deletion adds
 * nothing. The liquid family belongs to the liquid engine (src/modules/liquid); a writer that worked out
 * its moves passes them here, so both families are stored in one statement.
 */
export async function applyAnswerChange(
  db: Db,
  target: LikertTarget,
  id: number,
  locked: Tally,
  removed: Answer | null,
  added: Answer | null,
  liquidMoves?: LiquidMove[],
): Promise<Tally> {
  // Without moves the liquid columns are left as they are (a tag, link or connection has none).
  const liquid = liquidMoves && locked.liquid ? withMoves(locked.liquid, liquidMoves) : null
  const stored = { direct: directAfter(locked.direct, removed, added), liquid }
  await storeTally(db, target, id, stored)
  return stored
}
