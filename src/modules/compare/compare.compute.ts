/**
 * The arithmetic of comparing two people (docs/compare.md), apart from any I/O. On each question both answered
 * (skips never count), the distance is the number of levels between the two ratings (0 to 4), or on a
 * multiple-choice question 0 for the same choice and 4 for another.
 */

/** The largest distance: opposite ends of the scale, or different choices. */
export const MAX_DISTANCE = 4

/** Counts of common questions at distance 0, 1, 2, 3 and 4. */
export type Distances = [number, number, number, number, number]

/** Below this many common questions a comparison says too little: `difference_percent` is null in the quick forms. */
export const MIN_COMMON_QUESTIONS = 5

export const noDistances = (): Distances => [0, 0, 0, 0, 0]

/** The distance between two likert ratings (1..5). */
export const ratingDistance = (a: number, b: number): number => Math.abs(a - b)

/** The distance between two choices of one multiple-choice question. */
export const choiceDistance = (a: number, b: number): number => (a === b ? 0 : MAX_DISTANCE)

/** How many common questions the histogram counts. */
export const questionsCounted = (d: readonly number[]): number => d.reduce((s, n) => s + n, 0)

/**
 * 100 · Σ i·d_i / (4 · Σ d_i): 0 when every common answer is the same, 100 when every one is at the opposite end.
 * Null without common questions (nothing to compare).
 */
export function differencePercent(d: readonly number[]): number | null {
  const counted = questionsCounted(d)
  if (counted === 0) return null
  let weighted = 0
  for (let i = 0; i < d.length; i++) weighted += i * d[i]
  return (100 * weighted) / (MAX_DISTANCE * counted)
}

/** differencePercent, null also below MIN_COMMON_QUESTIONS (the clients then show "not enough answers"). */
export function quickDifferencePercent(d: readonly number[]): number | null {
  return questionsCounted(d) < MIN_COMMON_QUESTIONS ? null : differencePercent(d)
}
