import { directAfter, withMoves, type Answer, type Tally, type WeightMove } from '../statistics/tally.ts'
import type { Db } from '../../db/types.ts'
import { storingTally, type LikertTarget } from './figures.repository.ts'

/**
 * Keeping stored figures exact on every write, in the writer's transaction: lock the row that carries
 * the figures, apply the answer removed and the answer added to its counts, and store the counts (the
 * database generates the figures from them, migration 028). O(1) per write; the result is what
 * `recomputeStatistics` computes from the raw votes, to the bit, because both store the same counts.
 */

/** Weight moved on a liquid family. */
export type LiquidMove = WeightMove

/**
 * Replaces `removed` by `added` in the direct counts of a row already locked (its tally read under that
 * lock) and stores the result. Either answer may be null: a new vote removes nothing, a deletion adds
 * nothing. The liquid family belongs to the liquid engine (src/engines/liquid); a writer that worked out
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
): Promise<void> {
  // Without moves the liquid columns are left as they are (a tag, link or connection has none).
  const liquid = liquidMoves && locked.liquid ? withMoves(locked.liquid, liquidMoves) : null
  await storingTally(db, target, id, { direct: directAfter(locked.direct, removed, added), liquid }).execute()
}
