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

/** The histogram of a list of distances (each 0..MAX_DISTANCE). */
export function histogramOf(distances: Iterable<number>): Distances {
  const d = noDistances()
  for (const distance of distances) d[distance] += 1
  return d
}

/** Per tag of the common questions: its id and the histogram of the common questions carrying it, keyed by tag name. */
export function topicHistograms(
  distanceOf: ReadonlyMap<number, number>,
  tags: readonly { question_id: number; tag_id: number; name: string }[],
): Record<string, { id: number; diffs: Distances }> {
  const out: Record<string, { id: number; diffs: Distances }> = {}
  for (const tag of tags) {
    const distance = distanceOf.get(tag.question_id)
    if (distance === undefined) continue
    const topic = (out[tag.name] ??= { id: tag.tag_id, diffs: noDistances() })
    topic.diffs[distance] += 1
  }
  return out
}

/** How many questions each of the detail page's lists shows. */
export const SHOWN_QUESTIONS = 5

/**
 * The questions that separate two people most: distance 2 or more (at least half the scale apart), largest
 * first, then lowest question id; and those they agree on most: distance 0 or 1, smallest first, then lowest id.
 * The two lists never share a question.
 */
export function separatingAndAgreeing<T extends { question_id: number; distance: number }>(
  common: readonly T[],
  size = SHOWN_QUESTIONS,
): { most_different: T[]; most_agreed: T[] } {
  const byId = (x: T, y: T) => x.question_id - y.question_id
  const most_different = common
    .filter((c) => c.distance >= 2)
    .sort((x, y) => y.distance - x.distance || byId(x, y))
    .slice(0, size)
  const most_agreed = common
    .filter((c) => c.distance <= 1)
    .sort((x, y) => x.distance - y.distance || byId(x, y))
    .slice(0, size)
  return { most_different, most_agreed }
}
