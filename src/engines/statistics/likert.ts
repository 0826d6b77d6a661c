/**
 * Pure statistics for 5-level likert answers.
 *
 * Ratings 1..5 stand for the levels minimum, low, medium, high, maximum.
 * Every figure depends on the counts' proportions only, so fractional
 * (weighted) counts give the same figures as integer counts in the same ratio.
 * See docs/statistics.md for the definitions and references.
 */

/** Counts per rating level 1..5 (minimum, low, medium, high, maximum). Skips are never in here. */
export type LevelCounts = readonly [number, number, number, number, number]

/** A distribution over the five levels; sums to 1. */
export type LevelProportions = readonly [number, number, number, number, number]

/** Zero/non-zero pattern of the five levels. */
export type LevelPattern = readonly [boolean, boolean, boolean, boolean, boolean]

export interface LikertFigures {
  vote_count: number
  sum: number
  value: number
  consensus: number
  heat: number
  polarisation: number
}

/** The five levels' names, as the stored count columns and the API's statistics fields spell them. */
export const LEVEL_NAMES = ['minimum', 'low', 'medium', 'high', 'maximum'] as const
export const LEVEL_COUNT = 5
export const RATINGS = [1, 2, 3, 4, 5] as const
export const NEUTRAL_RATING = 3
/** Width of the scale (maximum − minimum), not the observed range. */
export const SCALE_WIDTH = 4

const EMPTY_FIGURES: LikertFigures = {
  vote_count: 0,
  sum: 0,
  value: 0,
  consensus: 0,
  heat: 0,
  polarisation: 0,
}

export function clamp(x: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, x))
}

/** Throws on a count that is negative, NaN or infinite: such input has no meaningful figures. */
export function assertValidCounts(counts: LevelCounts): void {
  if (counts.length !== LEVEL_COUNT) {
    throw new RangeError(`expected ${LEVEL_COUNT} level counts, got ${counts.length}`)
  }
  for (const c of counts) {
    if (!Number.isFinite(c) || c < 0) {
      throw new RangeError(`level counts must be finite and non-negative, got ${c}`)
    }
  }
}

export function voteCount(counts: LevelCounts): number {
  return counts.reduce((total, c) => total + c, 0)
}

export function ratingSum(counts: LevelCounts): number {
  return counts.reduce((total, c, i) => total + c * RATINGS[i], 0)
}

export function proportions(counts: LevelCounts): LevelProportions {
  const n = voteCount(counts)
  const [c1, c2, c3, c4, c5] = counts
  return [c1 / n, c2 / n, c3 / n, c4 / n, c5 / n]
}

export function meanRating(p: LevelProportions): number {
  return clamp(
    p.reduce((total, pi, i) => total + pi * RATINGS[i], 0),
    1,
    5,
  )
}

/** Index of the only non-empty level, or -1 when zero or several levels hold votes. */
export function unanimousLevel(counts: LevelCounts): number {
  const filled = counts.flatMap((c, i) => (c > 0 ? [i] : []))
  return filled.length === 1 ? filled[0] : -1
}

/**
 * Tastle & Wierman (2007) consensus: 1 + Σ p_i·log2(1 − |x_i − μ| / width), in [0, 1].
 * 1 when all votes sit at one level, 0 for an even split between the two extremes.
 */
export function tastleWiermanConsensus(p: LevelProportions): number {
  const mu = meanRating(p)
  let total = 1
  p.forEach((pi, i) => {
    if (pi <= 0) return // 0·log 0 = 0
    // The exact argument is never below p_i; flooring there only removes rounding
    // error that could otherwise reach log2(0) when μ sits next to an extreme.
    const closeness = Math.max(1 - Math.abs(RATINGS[i] - mu) / SCALE_WIDTH, pi)
    total += pi * Math.log2(closeness)
  })
  return clamp(total, 0, 1)
}

/**
 * Folded intensity (Suchman 1950): mean distance from the neutral midpoint,
 * scaled so that 0 is everyone neutral and 1 is everyone at an extreme.
 */
export function foldedHeat(p: LevelProportions): number {
  const maxDistance = SCALE_WIDTH / 2
  const total = p.reduce((acc, pi, i) => acc + pi * Math.abs(RATINGS[i] - NEUTRAL_RATING), 0)
  return clamp(total / maxDistance, 0, 1)
}

/** Counts the ordered triples i < j < k of a pattern that are unimodal (110, 011) or bimodal (101). */
export function patternTriples(pattern: LevelPattern): { unimodal: number; bimodal: number } {
  let unimodal = 0
  let bimodal = 0
  const k = pattern.length
  for (let a = 0; a < k; a++) {
    for (let b = a + 1; b < k; b++) {
      for (let c = b + 1; c < k; c++) {
        const [x, y, z] = [pattern[a], pattern[b], pattern[c]]
        if (x && !y && z) bimodal++
        else if ((x && y && !z) || (!x && y && z)) unimodal++
      }
    }
  }
  return { unimodal, bimodal }
}

/**
 * Van der Eijk's (2001) agreement of one layer pattern, equation (2):
 * A = U·(1 − (S − 1)/(K − 1)), with U from the unimodal/bimodal triple counts.
 */
export function patternAgreement(pattern: LevelPattern): number {
  const k = pattern.length
  const filled = pattern.filter(Boolean).length
  if (filled <= 1) return 1
  const { unimodal, bimodal } = patternTriples(pattern)
  if (unimodal + bimodal === 0) return 0 // every level filled: a uniform layer
  const u = ((k - 2) * unimodal - (k - 1) * bimodal) / ((k - 2) * (unimodal + bimodal))
  return u * (1 - (filled - 1) / (k - 1))
}

/** Which levels hold at least `threshold` votes. */
export function levelsReaching(counts: LevelCounts, threshold: number): LevelPattern {
  const [c1, c2, c3, c4, c5] = counts
  return [c1 >= threshold, c2 >= threshold, c3 >= threshold, c4 >= threshold, c5 >= threshold]
}

export interface AgreementLayer {
  pattern: LevelPattern
  /** Share of all votes that this layer holds; the layers' weights sum to 1. */
  weight: number
}

/**
 * Splits a distribution into van der Eijk's layers: each layer takes the same amount
 * from every level that still holds votes, as much as the smallest of them holds.
 * Built from the distinct count values rather than by repeated subtraction, so that
 * fractional counts leave no rounding residue behind.
 */
export function agreementLayers(counts: LevelCounts): AgreementLayer[] {
  const n = voteCount(counts)
  const thresholds = [...new Set(counts.filter((c) => c > 0))].sort((a, b) => a - b)
  const layers: AgreementLayer[] = []
  let previous = 0
  for (const threshold of thresholds) {
    const pattern = levelsReaching(counts, threshold)
    const filled = pattern.filter(Boolean).length
    layers.push({ pattern, weight: ((threshold - previous) * filled) / n })
    previous = threshold
  }
  return layers
}

/**
 * Van der Eijk's (2001) agreement A in [−1, 1]: the layers' pattern agreements,
 * weighted by layer size. 1 unanimity, 0 uniform, −1 an even split between the extremes.
 */
export function vanDerEijkAgreement(counts: LevelCounts): number {
  const a = agreementLayers(counts).reduce((acc, layer) => acc + layer.weight * patternAgreement(layer.pattern), 0)
  return clamp(a, -1, 1)
}

/** Van der Eijk polarisation (1 − A)/2 in [0, 1]: 0 unanimity, 0.5 uniform, 1 an even split between the extremes. */
export function vanDerEijkPolarisation(counts: LevelCounts): number {
  return clamp((1 - vanDerEijkAgreement(counts)) / 2, 0, 1)
}

/**
 * All figures of one likert distribution. With no votes every figure is 0
 * (the API types them as plain numbers; vote_count 0 says nothing is behind them).
 */
export function likertFigures(counts: LevelCounts): LikertFigures {
  assertValidCounts(counts)
  const n = voteCount(counts)
  if (n === 0) return { ...EMPTY_FIGURES }
  const sum = ratingSum(counts)

  const onlyLevel = unanimousLevel(counts)
  if (onlyLevel >= 0) {
    const rating = RATINGS[onlyLevel]
    return {
      vote_count: n,
      sum,
      value: rating,
      consensus: 1,
      heat: Math.abs(rating - NEUTRAL_RATING) / (SCALE_WIDTH / 2),
      polarisation: 0,
    }
  }

  const p = proportions(counts)
  return {
    vote_count: n,
    sum,
    value: clamp(sum / n, 1, 5),
    consensus: tastleWiermanConsensus(p),
    heat: foldedHeat(p),
    polarisation: vanDerEijkPolarisation(counts),
  }
}
