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

/** A grouping with the base clusters it groups, and its within-group squares over the participants. */
export interface GroupingCandidate {
  grouping: Grouping
  base: BaseClusters
  withinSquares: number
}

/** Σ over the participants of the squared distance to their group's mean place. */
function participantSquares(positions: Points, ofParticipant: Int32Array, ofBase: Int32Array, k: number): number {
  const sumX = new Float64Array(k)
  const sumY = new Float64Array(k)
  const size = new Float64Array(k)
  const groupOf = ofParticipant.map((b) => ofBase[b])
  groupOf.forEach((g, i) => {
    sumX[g] += positions.x[i]
    sumY[g] += positions.y[i]
    size[g]++
  })
  let squares = 0
  groupOf.forEach((g, i) => (squares += (positions.x[i] - sumX[g] / size[g]) ** 2 + (positions.y[i] - sumY[g] / size[g]) ** 2))
  return squares
}

/** Random streams of start s: its base clusters, and its groups for each k. */
const START_STEP = 1000

/**
 * `starts` complete starts, each its own base clusters and then its groups for every k; each k keeps the start whose
 * groups have the least within-group squares over the participants (the first on a tie), the quantity k-means
 * minimises. One start of base clusters lands on one of several nearly equal splits (on Pol.is's conversations
 * their agreement with each other varies by 0.1 of the adjusted Rand index); the least squares of several is
 * steadier. `first` is the first start's base clusters (their count bounds k).
 */
export function bestGroupings(
  positions: Points,
  o: {
    baseClusters: number
    maxGroups: number
    groupCount: number | null
    groupRestarts: number
    starts: number
    random: (step: number) => () => number
  },
): { first: BaseClusters; candidates: GroupingCandidate[] } {
  let first: BaseClusters | null = null
  const best = new Map<number, GroupingCandidate>()
  for (let s = 0; s < o.starts; s++) {
    const base = baseClusters(positions, o.baseClusters, o.random(1 + START_STEP * s))
    first ??= base
    const n = base.centers.x.length
    for (let k = 2; k <= Math.max(Math.min(o.maxGroups, n), Math.min(o.groupCount ?? 0, n)); k++) {
      const grouping = groupBases(base.centers, k, o.random(100 + k + START_STEP * s), o.groupRestarts)
      if (!grouping) continue
      const withinSquares = participantSquares(positions, base.ofParticipant, grouping.ofBase, k)
      const kept = best.get(k)
      if (!kept || withinSquares < kept.withinSquares) best.set(k, { grouping, base, withinSquares })
    }
  }
  return { first: first!, candidates: [...best.values()].sort((a, b) => a.grouping.k - b.grouping.k) }
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
