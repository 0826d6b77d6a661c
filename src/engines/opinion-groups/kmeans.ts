/**
 * k-means on 2-D points: Lloyd's algorithm, optionally weighted, started from given centres or from a seeded
 * k-means++ choice. Without weights it is R's kmeans(algorithm = "Lloyd") step for step: each point goes to the
 * nearest centre (the first on a tie), each centre becomes the mean of its points summed in point order, and it
 * stops when no point changes cluster.
 */

export interface Points {
  x: Float64Array
  y: Float64Array
  /** Per point; null counts each point once. */
  weight: Float64Array | null
}

export interface KMeansResult {
  /** Cluster of each point. */
  cluster: Int32Array
  centerX: Float64Array
  centerY: Float64Array
  /** Summed weight of each cluster's points (0 for a cluster that lost all of them). */
  size: Float64Array
  /** Lloyd steps run, the last one (which moved nothing) included, as R counts them. */
  iterations: number
  converged: boolean
  /** Σ weight × squared distance to the own centre. */
  withinSquares: number
}

function nearest(px: number, py: number, centerX: Float64Array, centerY: Float64Array): number {
  let best = Infinity
  let chosen = 0
  for (let j = 0; j < centerX.length; j++) {
    const dx = px - centerX[j]
    const dy = py - centerY[j]
    const d = dx * dx + dy * dy
    if (d < best) {
      best = d
      chosen = j
    }
  }
  return chosen
}

/** Lloyd from the given centres. A cluster left without points is dead (size 0, centre NaN): callers drop it. */
export function lloyd(points: Points, startX: ArrayLike<number>, startY: ArrayLike<number>, maxIterations: number): KMeansResult {
  const n = points.x.length
  const k = startX.length
  const centerX = Float64Array.from(startX)
  const centerY = Float64Array.from(startY)
  const cluster = new Int32Array(n).fill(-1)
  const sumX = new Float64Array(k)
  const sumY = new Float64Array(k)
  const size = new Float64Array(k)
  let iterations = 0
  let converged = false
  while (iterations < maxIterations) {
    iterations++
    let moved = false
    for (let i = 0; i < n; i++) {
      const j = nearest(points.x[i], points.y[i], centerX, centerY)
      if (j !== cluster[i]) {
        cluster[i] = j
        moved = true
      }
    }
    if (!moved) {
      converged = true
      break
    }
    sumX.fill(0)
    sumY.fill(0)
    size.fill(0)
    for (let i = 0; i < n; i++) {
      const w = points.weight ? points.weight[i] : 1
      const j = cluster[i]
      sumX[j] += w * points.x[i]
      sumY[j] += w * points.y[i]
      size[j] += w
    }
    // An empty cluster's centre becomes NaN, as in R (0 / 0): no point is nearer to NaN, so it stays empty.
    for (let j = 0; j < k; j++) {
      centerX[j] = sumX[j] / size[j]
      centerY[j] = sumY[j] / size[j]
    }
  }
  size.fill(0)
  let withinSquares = 0
  for (let i = 0; i < n; i++) {
    const w = points.weight ? points.weight[i] : 1
    const j = cluster[i]
    size[j] += w
    withinSquares += w * ((points.x[i] - centerX[j]) ** 2 + (points.y[i] - centerY[j]) ** 2)
  }
  return { cluster, centerX, centerY, size, iterations, converged, withinSquares }
}

/**
 * k-means++ start (Arthur and Vassilvitskii 2007), weighted: the first centre drawn by weight, each next one by
 * weight × squared distance to the nearest centre so far. Points at distance 0 are never drawn, so the centres are
 * distinct; fewer than k come back when there are fewer distinct points.
 */
export function kMeansPlusPlus(points: Points, k: number, random: () => number): { x: number[]; y: number[] } {
  const n = points.x.length
  const x: number[] = []
  const y: number[] = []
  if (n === 0 || k <= 0) return { x, y }
  const weight = (i: number) => (points.weight ? points.weight[i] : 1)
  const draw = (score: (i: number) => number, total: number) => {
    let target = random() * total
    for (let i = 0; i < n; i++) {
      target -= score(i)
      if (target < 0 && score(i) > 0) return i
    }
    // Rounding left a sliver past the end: the last point with any score.
    for (let i = n - 1; i >= 0; i--) if (score(i) > 0) return i
    return -1
  }
  let totalWeight = 0
  for (let i = 0; i < n; i++) totalWeight += weight(i)
  const first = draw(weight, totalWeight)
  if (first < 0) return { x, y }
  x.push(points.x[first])
  y.push(points.y[first])
  const distance = new Float64Array(n)
  for (let i = 0; i < n; i++) distance[i] = (points.x[i] - x[0]) ** 2 + (points.y[i] - y[0]) ** 2
  const score = (i: number) => weight(i) * distance[i]
  while (x.length < k) {
    let total = 0
    for (let i = 0; i < n; i++) total += score(i)
    if (!(total > 0)) break
    const chosen = draw(score, total)
    x.push(points.x[chosen])
    y.push(points.y[chosen])
    for (let i = 0; i < n; i++)
      distance[i] = Math.min(distance[i], (points.x[i] - points.x[chosen]) ** 2 + (points.y[i] - points.y[chosen]) ** 2)
  }
  return { x, y }
}

/** Seeded k-means++ then Lloyd, keeping the best of `restarts` runs by within-cluster squares (the first on a tie). */
export function kMeans(points: Points, k: number, random: () => number, restarts: number, maxIterations: number): KMeansResult | null {
  let best: KMeansResult | null = null
  for (let r = 0; r < restarts; r++) {
    const start = kMeansPlusPlus(points, k, random)
    if (start.x.length === 0) return null
    const run = lloyd(points, start.x, start.y, maxIterations)
    if (!best || run.withinSquares < best.withinSquares) best = run
  }
  return best
}
