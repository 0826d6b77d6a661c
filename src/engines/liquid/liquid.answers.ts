import type { RawBuilder } from 'kysely'
import type { LiquidMove } from '../figures/apply.ts'
import { liquidRepository, type Block, type Slot } from './liquid.repository.ts'
import type { Db } from '../../db/types.ts'

/**
 * The answer paths' short road through the liquid engine (R1, R8, R9 of docs/liquid-democracy.md).
 * A user's block (themselves and the unanswered users whose chains pass through them) does not depend
 * on the user's own answer, so one read before the write tells where it counts with and without it.
 * A stored answer weight is exact (1 + block for a public answer of an active account, else 1), so
 * edits that keep privacy read nothing at all.
 */
export type { Block }

export function readBlock(db: Db, questionId: number, userId: number): Promise<Block> {
  return liquidRepository(db).block(questionId, userId)
}

/** What the user's own answer carries: their whole block when public and their account is eligible, else themselves. */
export function ownAnswerWeight(block: Pick<Block, 'intree' | 'eligible'>, isPrivate: boolean): number {
  return !isPrivate && block.eligible ? 1 + block.intree : 1
}

/**
 * The block joins (sign 1, on withdrawal) or leaves (sign -1, on a first answer) the representative it
 * counts at without an answer: that vote row's weight changes now; the histogram move is returned for
 * the caller to store with the figure update it makes anyway.
 */
export async function shiftRepresentative(db: Db, block: Block, sign: 1 | -1): Promise<{ slot: Slot; move: LiquidMove } | null> {
  const shift = shiftingRepresentative(db, block, sign)
  await shift?.query?.execute(db)
  return shift
}

/** The same shift, its update not yet run (an answer's write runs it with the rest). */
export function shiftingRepresentative(
  db: Db,
  block: Block,
  sign: 1 | -1,
): { slot: Slot; move: LiquidMove; query: RawBuilder<unknown> | null } | null {
  const slot = block.representative
  if (!slot) return null
  const amount = sign * (1 + block.intree)
  const query = liquidRepository(db).addingWeights(slot.voteTable, new Map([[slot.voteId, amount]]))
  return { slot, move: { value: slot.value, amount }, query }
}

/**
 * The weight an edited answer carries. Only going public needs the block; going private leaves the
 * user alone (their delegators' chains now end at a private answer, R8).
 */
export async function editedAnswerWeight(
  db: Db,
  vote: { question_id: number; user_id: number; private: boolean; liquid_weight: number },
  nextPrivate: boolean | undefined,
): Promise<number> {
  if (nextPrivate === undefined || nextPrivate === vote.private) return vote.liquid_weight
  if (nextPrivate) return 1
  return ownAnswerWeight(await readBlock(db, vote.question_id, vote.user_id), false)
}

/** The histogram moves of one answer replaced by another (either may be absent). */
export function answerMoves(
  before: { value: number | null; liquid_weight: number } | null,
  after: { value: number | null; liquid_weight: number } | null,
): LiquidMove[] {
  const moves: LiquidMove[] = []
  if (after) moves.push({ value: after.value, amount: after.liquid_weight })
  if (before) moves.push({ value: before.value, amount: -before.liquid_weight })
  return moves
}
