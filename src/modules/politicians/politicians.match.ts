import { noDistances, questionsCounted, quickDifferencePercent, type Distances } from '../compare/compare.compute.ts'

/**
 * Ranking politicians by agreement with a person, apart from any I/O. A politician's figures are those of the
 * account linked to it; without one, or without a common question, nothing is known (null, 0).
 */

export interface MatchCandidate {
  id: number
  /** The linked account, null without one. */
  user_id: number | null
}

export interface PoliticianMatch extends MatchCandidate {
  distances: Distances
  questions_counted: number
  /** Null below MIN_COMMON_QUESTIONS common questions (the quick forms' rule). */
  difference_percent: number | null
}

/**
 * Most agreement first: lowest difference_percent, nulls last; then more common questions; then the order the
 * candidates came in (the listing's default order), since the sort is stable.
 */
export function rankPoliticians(candidates: readonly MatchCandidate[], histograms: ReadonlyMap<number, Distances>): PoliticianMatch[] {
  const matches = candidates.map((candidate): PoliticianMatch => {
    const distances = (candidate.user_id === null ? undefined : histograms.get(candidate.user_id)) ?? noDistances()
    return {
      ...candidate,
      distances,
      questions_counted: questionsCounted(distances),
      difference_percent: quickDifferencePercent(distances),
    }
  })
  return matches.sort((x, y) => {
    if (x.difference_percent !== y.difference_percent) {
      if (x.difference_percent === null) return 1
      if (y.difference_percent === null) return -1
      return x.difference_percent - y.difference_percent
    }
    return y.questions_counted - x.questions_counted
  })
}
