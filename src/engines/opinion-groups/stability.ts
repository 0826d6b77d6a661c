/** Comparing two groupings: the adjusted Rand index, and carrying group labels from one recompute to the next. */

const pairs = (n: number) => (n * (n - 1)) / 2

/**
 * Adjusted Rand index (Hubert and Arabie 1985) of two labellings of the same items: 1 for the same partition
 * whatever the labels, about 0 for independent ones. Two partitions that are both trivial the same way (one
 * cluster each, or all singletons each) have no variation to compare and count as equal: 1.
 */
export function adjustedRandIndex(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError('the two labellings differ in length')
  const n = a.length
  const cells = new Map<string, number>()
  const rows = new Map<number, number>()
  const columns = new Map<number, number>()
  for (let i = 0; i < n; i++) {
    const key = `${a[i]} ${b[i]}`
    cells.set(key, (cells.get(key) ?? 0) + 1)
    rows.set(a[i], (rows.get(a[i]) ?? 0) + 1)
    columns.set(b[i], (columns.get(b[i]) ?? 0) + 1)
  }
  let index = 0
  for (const count of cells.values()) index += pairs(count)
  let rowPairs = 0
  for (const count of rows.values()) rowPairs += pairs(count)
  let columnPairs = 0
  for (const count of columns.values()) columnPairs += pairs(count)
  const expected = n < 2 ? 0 : (rowPairs * columnPairs) / pairs(n)
  const maximum = (rowPairs + columnPairs) / 2
  if (maximum === expected) return 1
  return (index - expected) / (maximum - expected)
}

/**
 * The assignment of rows to columns with the largest total (Hungarian method, Kuhn–Munkres, O(n³) on the square
 * padded matrix). Returns the column of each row, −1 for a row matched to padding.
 */
export function maximumAssignment(weights: readonly (readonly number[])[], columns: number): number[] {
  const rows = weights.length
  const n = Math.max(rows, columns)
  // Minimise cost = max − weight, with 1-based potentials u, v and the row matched to each column p.
  let largest = 0
  for (const row of weights) for (const w of row) largest = Math.max(largest, w)
  const cost = (i: number, j: number) => (i < rows && j < columns ? largest - weights[i][j] : largest)
  const u = new Float64Array(n + 1)
  const v = new Float64Array(n + 1)
  const p = new Int32Array(n + 1)
  const way = new Int32Array(n + 1)
  for (let i = 1; i <= n; i++) {
    p[0] = i
    let j0 = 0
    const minv = new Float64Array(n + 1).fill(Infinity)
    const used = new Uint8Array(n + 1)
    do {
      used[j0] = 1
      const i0 = p[j0]
      let delta = Infinity
      let j1 = 0
      for (let j = 1; j <= n; j++)
        if (!used[j]) {
          const current = cost(i0 - 1, j - 1) - u[i0] - v[j]
          if (current < minv[j]) {
            minv[j] = current
            way[j] = j0
          }
          if (minv[j] < delta) {
            delta = minv[j]
            j1 = j
          }
        }
      for (let j = 0; j <= n; j++)
        if (used[j]) {
          u[p[j]] += delta
          v[j] -= delta
        } else minv[j] -= delta
      j0 = j1
    } while (p[j0] !== 0)
    do {
      const j1 = way[j0]
      p[j0] = p[j1]
      j0 = j1
    } while (j0)
  }
  const assignment = new Array<number>(rows).fill(-1)
  for (let j = 1; j <= n; j++) if (p[j] - 1 < rows && j - 1 < columns) assignment[p[j] - 1] = j - 1
  return assignment
}

export interface LabelMatch {
  /** Label of each new group. */
  labels: number[]
  /** New groups that took a previous label. */
  kept: number
}

/**
 * Labels for the new groups (given in their canonical order): each takes the previous label it shares the most
 * members with, the pairing that maximises the members shared in all (Hungarian method), so labels persist when
 * groups drift or k changes. A new group sharing nobody with any previous group, or left over, takes the smallest
 * label not in use.
 */
export function matchLabels(overlap: readonly (readonly number[])[], previousLabels: readonly number[]): LabelMatch {
  const assignment = maximumAssignment(overlap, previousLabels.length)
  const labels = new Array<number>(overlap.length).fill(-1)
  const used = new Set<number>()
  let kept = 0
  assignment.forEach((j, g) => {
    if (j >= 0 && overlap[g][j] > 0) {
      labels[g] = previousLabels[j]
      used.add(labels[g])
      kept++
    }
  })
  let free = 0
  for (let g = 0; g < labels.length; g++) {
    if (labels[g] >= 0) continue
    while (used.has(free)) free++
    labels[g] = free
    used.add(free)
  }
  return { labels, kept }
}
