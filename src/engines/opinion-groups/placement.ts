/** Reading a result: where an account sits, and the group nearest a position (for people not clustered). */
import type { OpinionGroupsResult } from './types.ts'

/**
 * The label of the group nearest (x, y): the group of the nearest base cluster centre, since groups are unions of
 * base clusters and their shapes need not be round. Null when the result has no groups.
 */
export function nearestGroup(result: OpinionGroupsResult, x: number, y: number): number | null {
  const base = result.baseClusters
  let best = Infinity
  let label: number | null = null
  for (let b = 0; b < base.x.length; b++) {
    const d = (base.x[b] - x) ** 2 + (base.y[b] - y) ** 2
    if (d < best) {
      best = d
      label = base.group[b]
    }
  }
  return label
}

export interface Placement {
  x: number
  y: number
  /** The account's group, or for an account not clustered the nearest group; null without groups. */
  group: number | null
  /** True when `group` is the nearest group rather than one the account was clustered in. */
  nearest: boolean
}

/** Where an account sits (binary search over the ascending account ids); null when it is not in the result. */
export function placeAccount(result: OpinionGroupsResult, accountId: number): Placement | null {
  const { accountIds, x, y, group } = result.participants
  let low = 0
  let high = accountIds.length - 1
  while (low <= high) {
    const middle = (low + high) >> 1
    if (accountIds[middle] < accountId) low = middle + 1
    else if (accountIds[middle] > accountId) high = middle - 1
    else {
      const own = group[middle]
      if (own >= 0) return { x: x[middle], y: y[middle], group: own, nearest: false }
      return { x: x[middle], y: y[middle], group: nearestGroup(result, x[middle], y[middle]), nearest: true }
    }
  }
  return null
}
