/** Per column across the groups: what they agree on together, and what divides them. */

/** Laplace-smoothed agree rate (agree + 1) / (seen + 2): a group with few answers is pulled towards ½. */
export const agreeRate = (agree: number, seen: number) => (agree + 1) / (seen + 2)

/**
 * Pol.is's group-informed consensus: ∏ over groups of the smoothed agree rate. High only when every group agrees,
 * so one group against it is enough to pull it down; it shrinks with the number of groups, so compare it only
 * between columns of one result.
 */
export function groupInformedConsensus(agree: readonly ArrayLike<number>[], seen: readonly ArrayLike<number>[], column: number): number {
  let product = 1
  for (let g = 0; g < agree.length; g++) product *= agreeRate(agree[g][column], seen[g][column])
  return product
}

/**
 * Divisiveness: the largest minus the smallest smoothed agree rate among the groups, 0..1. It reads directly ("the
 * groups' agreement is 60 points apart"), uses the same smoothed rate as the consensus, and does not grow with the
 * number of groups; 0 with one group.
 */
export function divisiveness(agree: readonly ArrayLike<number>[], seen: readonly ArrayLike<number>[], column: number): number {
  let low = Infinity
  let high = -Infinity
  for (let g = 0; g < agree.length; g++) {
    const rate = agreeRate(agree[g][column], seen[g][column])
    low = Math.min(low, rate)
    high = Math.max(high, rate)
  }
  return agree.length > 0 ? high - low : 0
}
