/** Group labels: a canonical order, or the previous result's labels carried over, and how much the groups moved. */
import type { OpinionMatrix } from './matrix.ts'
import { adjustedRandIndex, matchLabels } from './stability.ts'
import type { PreviousOpinionGroups } from './types.ts'

export interface LabelledGroups {
  /** Each row's group as an index into `labels` (−1: not clustered). */
  groupOfRow: Int32Array
  /** Index into `labels` of each k-means group. */
  indexOfGroup: Int32Array
  /** The groups' labels, ascending. */
  labels: number[]
  labelsKept: number
  adjustedRand: number | null
  compared: number
}

/**
 * Without a previous result the groups are labelled 0, 1, … by size, the larger first, then by their lowest
 * account id: an order that depends on the answers only, not on how k-means numbered them.
 */
export function labelGroups(
  m: OpinionMatrix,
  clustered: Int32Array,
  baseOfParticipant: Int32Array,
  groupOfBase: Int32Array,
  groups: number,
  previous: PreviousOpinionGroups | null | undefined,
): LabelledGroups {
  const kmeansGroup = new Int32Array(m.rows).fill(-1)
  const size = new Int32Array(groups)
  const firstRow = new Int32Array(groups).fill(m.rows)
  clustered.forEach((row, p) => {
    const g = groupOfBase[baseOfParticipant[p]]
    kmeansGroup[row] = g
    size[g]++
    firstRow[g] = Math.min(firstRow[g], row)
  })
  const canonical = Array.from({ length: groups }, (_, g) => g).sort((a, b) => size[b] - size[a] || firstRow[a] - firstRow[b])

  let labelOfCanonical = canonical.map((_, i) => i)
  let labelsKept = 0
  let adjustedRand: number | null = null
  let compared = 0
  if (previous) {
    const before = new Map<number, number>()
    previous.participants.accountIds.forEach((id, i) => {
      if (previous.participants.group[i] >= 0) before.set(id, previous.participants.group[i])
    })
    const previousLabels = [...new Set(before.values())].sort((a, b) => a - b)
    const column = new Map(previousLabels.map((label, j) => [label, j]))
    const rankOf = new Int32Array(groups)
    canonical.forEach((g, i) => (rankOf[g] = i))
    const overlap = canonical.map(() => new Array<number>(previousLabels.length).fill(0))
    const oldLabels: number[] = []
    const newGroups: number[] = []
    for (let row = 0; row < m.rows; row++) {
      const old = before.get(m.accountIds[row])
      if (old === undefined || kmeansGroup[row] < 0) continue
      overlap[rankOf[kmeansGroup[row]]][column.get(old)!]++
      oldLabels.push(old)
      newGroups.push(kmeansGroup[row])
    }
    const match = matchLabels(overlap, previousLabels)
    labelOfCanonical = match.labels
    labelsKept = match.kept
    compared = oldLabels.length
    adjustedRand = compared > 0 ? adjustedRandIndex(oldLabels, newGroups) + 0 : null
  }

  const byLabel = canonical.map((g, i) => ({ g, label: labelOfCanonical[i] })).sort((a, b) => a.label - b.label)
  const indexOfGroup = new Int32Array(groups)
  byLabel.forEach(({ g }, index) => (indexOfGroup[g] = index))
  const groupOfRow = kmeansGroup.map((g) => (g < 0 ? -1 : indexOfGroup[g]))
  return { groupOfRow, indexOfGroup, labels: byLabel.map((b) => b.label), labelsKept, adjustedRand, compared }
}
