/** Reading a result: where an account sits, and the group nearest a position (for people not clustered). */
import type { OpinionGroupsResult, OpinionInput } from './types.ts'

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

/**
 * Positions for people the model was not fitted on, from their answers (columns matched to the result's by key):
 * centred by the fitted means and projected on the fitted components with the same sparsity-aware scaling, so a
 * fitted participant's own answers give back their fitted position. Ascending account ids; nobody is clustered.
 */
export function projectParticipants(result: OpinionGroupsResult, input: OpinionInput): { accountIds: number[]; x: number[]; y: number[] } {
  const columnOf = new Map(result.columnKeys.map((key, j) => [key, j]))
  const fitted = input.columns.map((c) => columnOf.get(c.key) ?? -1)
  const order = Array.from(input.accountIds, (id, i) => [id, i]).sort((a, b) => a[0] - b[0])
  const rowOf = new Int32Array(order.length)
  order.forEach(([, i], row) => (rowOf[i] = row))
  const sumX = new Float64Array(order.length)
  const sumY = new Float64Array(order.length)
  const entries = new Int32Array(order.length)
  const [first, second] = result.pca.components
  const { center } = result.pca
  // Summed by row, then column, as the fitted rows are: the same answers in any order give the same bits.
  const { participant, column, value } = input.answers
  const byRow = Array.from({ length: participant.length }, (_, a) => a).sort(
    (a, b) => rowOf[participant[a]] - rowOf[participant[b]] || column[a] - column[b],
  )
  for (const a of byRow) {
    const row = rowOf[participant[a]]
    const j = fitted[column[a]]
    entries[row]++
    // A column the model has no answers for is 0 after centring, as in the fitted rows.
    if (j < 0) continue
    const centred = value[a] - center[j]
    sumX[row] += centred * (first?.[j] ?? 0)
    sumY[row] += centred * (second?.[j] ?? 0)
  }
  // Models kept before activeColumns was recorded scale to every column; zeroed statements count for everyone.
  const zeroed = result.pca.zeroedStatements ?? 0
  const active = (result.pca.activeColumns ?? result.columnKeys.length) + zeroed
  const scale = (sum: number, row: number) => (entries[row] === 0 ? 0 : sum * Math.sqrt(active / (entries[row] + zeroed)) + 0)
  return {
    accountIds: order.map(([id]) => id),
    x: Array.from(sumX, scale),
    y: Array.from(sumY, scale),
  }
}
