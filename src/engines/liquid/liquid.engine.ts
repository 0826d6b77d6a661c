import { withMoves, type WeightMove } from '../statistics/tally.ts'
import { liquidRepository, type Chain, type Slot, type Standing } from './liquid.repository.ts'
import type { Db } from '../../db/types.ts'

/**
 * Keeps the liquid figures exact on every change, inside the writer's transaction (R1-R8 of
 * docs/liquid-democracy.md). A change moves one user's block (the user and everyone whose chain passes
 * through them) from where it counted to where it counts now; only those two answers' weights and
 * histograms move. The caller holds the lock of each question involved (votes and delegation writes
 * lock question rows first), so a question's graph does not change between the two readings.
 */
export interface PendingLiquidChange {
  /** Reads the user's standings again after the write and applies the difference. */
  apply(): Promise<void>
}

/** Reads where the user counts on each question before a write that may move them. */
export async function liquidChangeOf(db: Db, questionIds: number[], userId: number): Promise<PendingLiquidChange> {
  const repository = liquidRepository(db)
  const before = await repository.standings(questionIds, userId)
  return {
    async apply() {
      const after = await repository.standings(questionIds, userId)
      await applyStandingChanges(db, userId, before, after)
    },
  }
}

interface Contribution {
  slot: Slot
  amount: number
}

/** Where the user's block counts: their own answer (all of it if it carries, else just them), or their representative's. */
function contributions(standing: Standing, intree: number): Contribution[] {
  if (standing.answered) return [{ slot: standing.slot, amount: standing.carries ? 1 + intree : 1 }]
  return standing.representative ? [{ slot: standing.representative, amount: 1 + intree }] : []
}

function sameHolder(a: Standing, b: Standing): boolean {
  if (a.answered || b.answered) return false
  return (
    (a.representative?.voteId ?? null) === (b.representative?.voteId ?? null) &&
    (a.representative?.voteTable ?? null) === (b.representative?.voteTable ?? null)
  )
}

/**
 * The kept block sizes (migration 031) along the chain the user's block left and the one it joined, on each question
 * where the user has no answer (an answer stops the block, whatever the delegations) and the chain changed.
 */
async function followKeptBlocks(db: Db, userId: number, before: Map<number, Standing>, after: Map<number, Standing>): Promise<void> {
  const moves: { questionId: number; chain: Chain; sign: -1 | 1 }[] = []
  for (const [questionId, was] of before) {
    const now = after.get(questionId)!
    if (was.answered || now.answered || !was.chain || !now.chain) continue
    if (was.chain.looped === now.chain.looped && sameUsers(was.chain.path, now.chain.path)) continue
    moves.push({ questionId, chain: was.chain, sign: -1 }, { questionId, chain: now.chain, sign: 1 })
  }
  await liquidRepository(db).followKeptBlocks(userId, moves)
}

const sameUsers = (a: number[], b: number[]) => a.length === b.length && a.every((user, i) => user === b[i])

async function applyStandingChanges(db: Db, userId: number, before: Map<number, Standing>, after: Map<number, Standing>): Promise<void> {
  await followKeptBlocks(db, userId, before, after)
  const moves: { minus: Contribution[]; plus: Contribution[]; own: Contribution | null }[] = []
  const needIntree: number[] = []
  for (const [questionId, was] of before) {
    const now = after.get(questionId)!
    if (sameHolder(was, now)) continue
    if (was.answered && now.answered && was.carries === now.carries) {
      if (sameSlot(was.slot, now.slot)) continue
      // A new value or choice with the same reach: the stored weight moves as it is.
      const weight = was.slot.weight
      moves.push({
        minus: [{ slot: was.slot, amount: weight }],
        plus: [{ slot: now.slot, amount: weight }],
        own: { slot: now.slot, amount: weight },
      })
      continue
    }
    needIntree.push(questionId)
  }
  const intrees = await liquidRepository(db).intrees(needIntree, userId)
  for (const questionId of needIntree) {
    const intree = intrees.get(questionId)!
    const was = before.get(questionId)!
    const now = after.get(questionId)!
    const plus = contributions(now, intree)
    moves.push({ minus: contributions(was, intree), plus, own: now.answered ? plus[0] : null })
  }
  await applyMoves(db, moves)
}

function sameSlot(a: Slot, b: Slot): boolean {
  return a.voteTable === b.voteTable && a.voteId === b.voteId && a.target === b.target && a.targetId === b.targetId && a.value === b.value
}

const key = (slot: Slot) => `${slot.target}:${slot.targetId}`

async function applyMoves(db: Db, moves: { minus: Contribution[]; plus: Contribution[]; own: Contribution | null }[]): Promise<void> {
  const histogram = new Map<string, { slot: Slot; changes: WeightMove[] }>()
  const weightDeltas = { question_votes: new Map<number, number>(), question_choice_votes: new Map<number, number>() }
  const ownWeights = { question_votes: new Map<number, number>(), question_choice_votes: new Map<number, number>() }
  const addHistogram = (slot: Slot, amount: number) => {
    const entry = histogram.get(key(slot)) ?? { slot, changes: [] }
    entry.changes.push({ value: slot.value, amount })
    histogram.set(key(slot), entry)
  }
  for (const { minus, plus, own } of moves) {
    for (const { slot, amount } of minus) {
      addHistogram(slot, -amount)
      if (slot !== own?.slot) adjust(weightDeltas[slot.voteTable], slot.voteId, -amount)
    }
    for (const { slot, amount } of plus) {
      addHistogram(slot, amount)
      if (slot !== own?.slot) adjust(weightDeltas[slot.voteTable], slot.voteId, amount)
    }
    if (own) ownWeights[own.slot.voteTable].set(own.slot.voteId, own.amount)
  }
  // The user's own row is set outright; weights it had as someone's representative are not touched.
  for (const table of ['question_votes', 'question_choice_votes'] as const) {
    for (const id of ownWeights[table].keys()) weightDeltas[table].delete(id)
  }
  const repository = liquidRepository(db)
  for (const table of ['question_votes', 'question_choice_votes'] as const) {
    await repository.addWeights(table, weightDeltas[table])
    await repository.setWeights(table, ownWeights[table])
  }
  for (const target of ['questions', 'question_choices'] as const) {
    const entries = [...histogram.values()].filter((entry) => entry.slot.target === target)
    const locked = await repository.lockLiquid(
      target,
      entries.map((entry) => entry.slot.targetId),
    )
    for (const entry of entries) {
      await repository.storeLiquid(target, entry.slot.targetId, withMoves(locked.get(entry.slot.targetId)!, entry.changes))
    }
  }
}

function adjust(map: Map<number, number>, id: number, amount: number): void {
  map.set(id, (map.get(id) ?? 0) + amount)
}
