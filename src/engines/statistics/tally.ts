import { LEVEL_NAMES, likertFigures, type LevelCounts } from './likert.ts'

/**
 * The stored counts behind one family of figures, and how one answer changes them. Pure: writers store
 * counts only (`storedCounts`); the floats are generated columns over them (migration 028), and
 * `familyColumns` computes the same figures here for figures that are never stored (published ones).
 */
export interface FamilyTally {
  /** Weight at each rating level 1..5. */
  counts: [number, number, number, number, number]
  skipped: number
}

/** The direct family, and the liquid one for targets that carry it. */
export interface Tally {
  direct: FamilyTally
  liquid: FamilyTally | null
}

/** One answer as it counts directly: a rating 1..5, or null for a skip. */
export interface Answer {
  value: number | null
}

/** Weight added (positive amount) or taken away (negative) at a level (null: a skip). */
export interface WeightMove {
  value: number | null
  amount: number
}

/** The stored count columns of a family, in the order of FamilyTally. */
export function countColumns(prefix: 'direct' | 'liquid'): string[] {
  return [...LEVEL_NAMES.map((level) => `${prefix}_${level}`), `${prefix}_skipped`]
}

export function emptyFamily(): FamilyTally {
  return { counts: [0, 0, 0, 0, 0], skipped: 0 }
}

export function familyFromRow(row: Record<string, unknown>, prefix: 'direct' | 'liquid'): FamilyTally {
  const [c1, c2, c3, c4, c5, skipped] = countColumns(prefix).map((column) => Number(row[column]))
  return { counts: [c1, c2, c3, c4, c5], skipped }
}

export function tallyFromRow(row: Record<string, unknown>, liquid: boolean): Tally {
  return { direct: familyFromRow(row, 'direct'), liquid: liquid ? familyFromRow(row, 'liquid') : null }
}

/** Adds (sign 1) or removes (sign −1) an answer of the given weight. */
export function withAnswer(family: FamilyTally, value: number | null, weight: number, sign: 1 | -1): FamilyTally {
  const counts = [...family.counts] as FamilyTally['counts']
  let skipped = family.skipped
  if (value === null) skipped += sign * weight
  else {
    if (!Number.isInteger(value) || value < 1 || value > 5) throw new RangeError(`a rating is 1..5, got ${value}`)
    counts[value - 1] += sign * weight
  }
  if (skipped < 0 || counts.some((c) => c < 0)) {
    throw new RangeError('the stored counts do not hold the answer being removed: they disagree with the votes')
  }
  return { counts, skipped }
}

/**
 * A family after weight moves: the one arithmetic of every write, direct or liquid. Additions come
 * first, so weight moving within one row never passes through a negative count.
 */
export function withMoves(family: FamilyTally, moves: readonly WeightMove[]): FamilyTally {
  let next = family
  for (const { value, amount } of [...moves].sort((a, b) => b.amount - a.amount)) {
    next = withAnswer(next, value, Math.abs(amount), amount > 0 ? 1 : -1)
  }
  return next
}

/** The direct family after one answer is taken away and another put in its place (either may be absent). */
export function directAfter(direct: FamilyTally, removed: Answer | null, added: Answer | null): FamilyTally {
  const moves: WeightMove[] = []
  if (removed) moves.push({ value: removed.value, amount: -1 })
  if (added) moves.push({ value: added.value, amount: 1 })
  return withMoves(direct, moves)
}

/** The count columns of a family, as writers store them. */
export function familyCounts(prefix: 'direct' | 'liquid', family: FamilyTally): Record<string, number> {
  const columns: Record<string, number> = {}
  LEVEL_NAMES.forEach((level, i) => (columns[`${prefix}_${level}`] = family.counts[i]))
  columns[`${prefix}_skipped`] = family.skipped
  return columns
}

/** The count columns to store for a tally (the database derives every figure from them). */
export function storedCounts(tally: Tally): Record<string, number> {
  return { ...familyCounts('direct', tally.direct), ...(tally.liquid ? familyCounts('liquid', tally.liquid) : {}) }
}

/** Every column of a family: the counts and the figures computed from them. */
export function familyColumns(prefix: 'direct' | 'liquid', family: FamilyTally): Record<string, number> {
  const figures = likertFigures(family.counts as unknown as LevelCounts)
  const columns = familyCounts(prefix, family)
  columns[`${prefix}_vote_count`] = figures.vote_count
  columns[`${prefix}_sum`] = figures.sum
  columns[`${prefix}_value`] = figures.value
  columns[`${prefix}_consensus`] = figures.consensus
  columns[`${prefix}_heat`] = figures.heat
  return columns
}

/** A tally's counts and figures; `polarisation` (from the liquid counts) only where liquid exists. */
export function storedColumns(tally: Tally): Record<string, number> {
  const columns = familyColumns('direct', tally.direct)
  if (tally.liquid) {
    Object.assign(columns, familyColumns('liquid', tally.liquid))
    columns.polarisation = likertFigures(tally.liquid.counts as unknown as LevelCounts).polarisation
  }
  return columns
}
