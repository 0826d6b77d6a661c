/**
 * From positions to groups, in Pol.is's two levels: up to 100 base clusters of participants, then groups as a
 * size-weighted k-means of the base centres for each k, the number of groups chosen by silhouette.
 */
import { kMeans, type KMeansResult, type Points } from './kmeans.ts'
import type { GroupCountCandidate, KSmoothingState } from './types.ts'

/** Lloyd steps at most, at both levels (Pol.is: 100 for the base clusters). */
const MAX_ITERATIONS = 100

export interface BaseClusters {
  /** Base cluster of each clustered participant. */
  ofParticipant: Int32Array
  centers: Points
}

/**
 * Base clusters: one seeded k-means++ start and Lloyd over the clustered participants in account-id order; clusters
 * left empty are dropped. They summarise thousands of people as ≤ k weighted points, on which the group level and
 * its silhouette are cheap.
 */
export function baseClusters(positions: Points, k: number, random: () => number): BaseClusters {
  const run = kMeans(positions, k, random, 1, MAX_ITERATIONS)
  if (!run)
    return { ofParticipant: new Int32Array(0), centers: { x: new Float64Array(0), y: new Float64Array(0), weight: new Float64Array(0) } }
  const renumber = new Int32Array(run.size.length).fill(-1)
  const x: number[] = []
  const y: number[] = []
  const weight: number[] = []
  run.size.forEach((size, j) => {
    if (size === 0) return
    renumber[j] = x.length
    x.push(run.centerX[j])
    y.push(run.centerY[j])
    weight.push(size)
  })
  return {
    ofParticipant: run.cluster.map((j) => renumber[j]),
    centers: { x: Float64Array.from(x), y: Float64Array.from(y), weight: Float64Array.from(weight) },
  }
}

/**
 * Silhouette of a grouping of the base clusters, weighted by their sizes, as an estimate of the participants'
 * silhouette: a base cluster's members are taken to sit at its centre. For a base cluster b in group G, a(b) is the
 * mean distance from one member to the other members of G (its own base mates at distance 0), b(b) the smallest
 * mean distance to the members of another group, s = (b − a) / max(a, b), 0 alone in a group; the mean weights each
 * s by its base cluster's size. Pol.is takes the unweighted mean over base clusters, so one stray participant counts
 * as much as three hundred.
 */
export function weightedSilhouette(centers: Points, group: Int32Array, k: number): number {
  const n = centers.x.length
  const weight = centers.weight!
  const groupSize = new Float64Array(k)
  for (let b = 0; b < n; b++) groupSize[group[b]] += weight[b]
  const toGroup = new Float64Array(k)
  let sum = 0
  let total = 0
  for (let b = 0; b < n; b++) {
    toGroup.fill(0)
    for (let c = 0; c < n; c++) toGroup[group[c]] += weight[c] * Math.hypot(centers.x[b] - centers.x[c], centers.y[b] - centers.y[c])
    const own = group[b]
    let s = 0
    if (groupSize[own] > 1) {
      const a = toGroup[own] / (groupSize[own] - 1)
      let nearestOther = Infinity
      for (let g = 0; g < k; g++) if (g !== own && groupSize[g] > 0) nearestOther = Math.min(nearestOther, toGroup[g] / groupSize[g])
      const larger = Math.max(a, nearestOther)
      s = larger > 0 && Number.isFinite(nearestOther) ? (nearestOther - a) / larger : 0
    }
    sum += weight[b] * s
    total += weight[b]
  }
  return total > 0 ? sum / total : 0
}

export interface Grouping {
  k: number
  /** Group (0..k−1, in k-means order) of each base cluster. */
  ofBase: Int32Array
  sizes: Float64Array
  silhouette: number
}

/** Size-weighted k-means of the base centres, the best of `restarts` seeded starts. */
export function groupBases(centers: Points, k: number, random: () => number, restarts: number): Grouping | null {
  const run: KMeansResult | null = kMeans(centers, k, random, restarts, MAX_ITERATIONS)
  if (!run || run.size.length < k || run.size.some((s) => s === 0)) return null
  return { k, ofBase: run.cluster, sizes: run.size, silhouette: weightedSilhouette(centers, run.cluster, k) }
}

export interface GroupCountChoice {
  k: number
  best: number | null
  candidates: GroupCountCandidate[]
  smoothing: KSmoothingState
}

/**
 * Silhouettes this close count as equal: the base-cluster silhouette is an estimate, and on the Pol.is conversations
 * of test/fixtures/polis the best k often beats others by 0.001–0.02, where the choice between them is noise.
 */
export const SILHOUETTE_MARGIN = 0.02

/**
 * The number of groups: among k = 2..kMax whose groups all have at least minGroupSize participants, the smallest k
 * whose silhouette is within SILHOUETTE_MARGIN of the highest (fewer groups are easier to read, and a larger k must
 * separate clearly better to be worth it). Then Pol.is's smoother: the k in use changes only once the same new
 * best k has won `runs` recomputes in a row, so that groups do not flicker between two near-equal k; a k that is
 * no longer possible is left at once.
 */
export function chooseGroupCount(
  groupings: readonly Grouping[],
  minGroupSize: number,
  runs: number,
  previous: KSmoothingState | null,
): GroupCountChoice {
  const candidates = groupings.map((g) => {
    const smallestGroup = Math.min(...g.sizes)
    return { k: g.k, silhouette: g.silhouette, smallestGroup, eligible: smallestGroup >= minGroupSize }
  })
  const eligible = candidates.filter((c) => c.eligible)
  const highest = Math.max(...eligible.map((c) => c.silhouette))
  const best = eligible.find((c) => c.silhouette >= highest - SILHOUETTE_MARGIN) ?? null
  if (!best) return { k: 1, best: null, candidates, smoothing: { bestK: 1, bestKRuns: 1, k: 1 } }
  const bestKRuns = previous && previous.bestK === best.k ? previous.bestKRuns + 1 : 1
  const keep = previous && bestKRuns < runs && candidates.some((c) => c.k === previous.k && c.eligible)
  const k = keep ? previous.k : best.k
  return { k, best: best.k, candidates, smoothing: { bestK: best.k, bestKRuns, k } }
}
