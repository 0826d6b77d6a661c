/**
 * Weighting answers to the census population, and the precision of the weighted figures. Pure: arrays in,
 * plain objects out (no database, no clock, no randomness).
 *
 * Why these methods (docs/statistics.md, "Weighting to the census"):
 * - post-stratification (w = N_h / n_h over cells h = age band x area) is the exact answer when every cell of
 *   the joint table holds enough respondents: each cell then speaks for its own share of the population;
 * - raking (iterative proportional fitting, Deming & Stephan 1940) matches the two margins only, for when
 *   some joint cells are empty or too small to carry a weight of their own;
 * - trimming caps extreme weights, which otherwise let one respondent speak for a large part of the result;
 * - Kish's effective sample size and design effect say how much precision the weights cost;
 * - standard errors are Taylor-linearised (with-replacement, one stage) exactly as R's survey package computes
 *   them for `svydesign(ids = ~1, weights = ...)`, crediting post-stratification (within-cell residuals, as
 *   `svyrecvar` does for a `postStratify` design) and raking (influence values residualised over the margins
 *   by alternating projections, as `svyrecvar` does for a `rake` design). test/statistics/weighting-r.test.ts
 *   checks them against R.
 */

/** The 0.975 quantile of the standard normal distribution (R's `qnorm(0.975)`), for 95 % intervals. */
export const Z95 = 1.959963984540054

/** Raking stops when every margin total is within this fraction of the grand total of its target. */
export const RAKE_EPSILON = 1e-12
/** Raking gives up (converged: false) after this many passes over the margins. */
export const RAKE_MAX_ITERATIONS = 1000
/**
 * Passes over the margins when residualising influence values of a raked design: R's `svyrecvar` makes ten
 * (a fixed number, not a convergence test), and matching it keeps the standard errors equal to R's.
 */
export const RAKE_VARIANCE_PASSES = 10

/** How the weights were calibrated, for the variance: the cells or margins the weights were fitted to. */
export type Calibration =
  | { type: 'none' }
  /** Post-stratified: each respondent's cell; `baseWeights` the weights before (1 when absent). */
  | { type: 'post-stratified'; cells: readonly number[]; baseWeights?: readonly number[] }
  /** Raked: for each margin, each respondent's category in it. */
  | { type: 'raked'; margins: readonly (readonly number[])[] }

function checkWeights(weights: readonly number[]): void {
  for (const w of weights) if (!Number.isFinite(w) || w < 0) throw new RangeError(`a weight is finite and not negative, got ${w}`)
}

/** Groups of each key array already seen: the mean and every share of one result residualise over the same cells. */
const groupsSeen = new WeakMap<readonly number[], Map<number, number[]>>()

/** Groups indexes by key. */
function groupsOf(keys: readonly number[]): Map<number, number[]> {
  const seen = groupsSeen.get(keys)
  if (seen) return seen
  const groups = new Map<number, number[]>()
  keys.forEach((key, i) => {
    const members = groups.get(key)
    if (members) members.push(i)
    else groups.set(key, [i])
  })
  groupsSeen.set(keys, groups)
  return groups
}

/**
 * Post-stratification weights: w_i = b_i · N_h / Σ_{j in h} b_j for respondent i in cell h (b the base weights,
 * 1 by default, so w = N_h / n_h). The weights of a cell add up to its population N_h, so weighted totals are
 * population totals. `population` maps a cell to N_h; a respondent whose cell has no population entry is an
 * error (the caller leaves such respondents out, as R's postStratify refuses them).
 */
export function postStratificationWeights(
  cells: readonly number[],
  population: ReadonlyMap<number, number>,
  baseWeights?: readonly number[],
): number[] {
  const base = baseWeights ?? cells.map(() => 1)
  const sampleTotal = new Map<number, number>()
  cells.forEach((cell, i) => sampleTotal.set(cell, (sampleTotal.get(cell) ?? 0) + base[i]))
  return cells.map((cell, i) => {
    const N = population.get(cell)
    if (N === undefined || !(N >= 0)) throw new RangeError(`cell ${cell} has no population`)
    return (base[i] * N) / sampleTotal.get(cell)!
  })
}

export interface RakeResult {
  weights: number[]
  /** Full passes over the margins made. */
  iterations: number
  converged: boolean
}

/**
 * Raking (iterative proportional fitting, Deming & Stephan 1940): starting from the base weights, scale the
 * weights of each category of each margin in turn so that they add up to its target, and repeat until every
 * margin total is within `epsilon` (a fraction of the grand total) of its target, or `maxIterations` passes.
 *
 * `margins[m][i]` is respondent i's category in margin m; `targets[m]` maps a category to its population
 * total. The targets of every margin must add up to the same grand total (else no weights can meet them) and
 * every category present in the sample needs a target. It converges whenever weights meeting every margin exist
 * (no category of a margin is reachable only through empty cells); otherwise `converged` is false.
 */
export function rakeWeights(
  margins: readonly (readonly number[])[],
  targets: readonly ReadonlyMap<number, number>[],
  options: { epsilon?: number; maxIterations?: number; baseWeights?: readonly number[] } = {},
): RakeResult {
  const n = margins[0]?.length ?? 0
  const weights = options.baseWeights ? [...options.baseWeights] : new Array<number>(n).fill(1)
  const epsilon = options.epsilon ?? RAKE_EPSILON
  const maxIterations = options.maxIterations ?? RAKE_MAX_ITERATIONS
  if (n === 0) return { weights, iterations: 0, converged: true }
  const groups = margins.map(groupsOf)
  for (const [m, margin] of groups.entries())
    for (const category of margin.keys())
      if (!targets[m].has(category)) throw new RangeError(`margin ${m} has no target for category ${category}`)
  const grandTotal = Math.max(...targets.map((target) => [...target.values()].reduce((s, v) => s + v, 0)))
  const gap = () => {
    let worst = 0
    groups.forEach((margin, m) => {
      for (const [category, members] of margin) {
        const total = members.reduce((s, i) => s + weights[i], 0)
        worst = Math.max(worst, Math.abs(total - targets[m].get(category)!))
      }
    })
    return worst
  }
  let iterations = 0
  while (iterations < maxIterations) {
    if (gap() <= epsilon * grandTotal) return { weights, iterations, converged: true }
    groups.forEach((margin, m) => {
      for (const [category, members] of margin) {
        const total = members.reduce((s, i) => s + weights[i], 0)
        const factor = total > 0 ? targets[m].get(category)! / total : 0
        for (const i of members) weights[i] *= factor
      }
    })
    iterations++
  }
  return { weights, iterations, converged: gap() <= epsilon * grandTotal }
}

export interface TrimResult {
  weights: number[]
  /** Whether any weight was capped (the precision then uses the weights as fixed: see designMean). */
  trimmed: boolean
  /** The cap: `cap` times the mean weight. */
  limit: number
}

/**
 * Trimming: no weight may exceed `cap` times the mean weight. Weights above the limit are set to it and the
 * others scaled up in proportion so the total (the population represented) is kept; scaling may lift more
 * weights over the limit, so this repeats until none exceeds it. The mean weight, hence the limit, is the same
 * throughout because the total is kept. With cap ≥ 1 it always ends (at worst every weight equals the mean).
 * This is the rule of the ANES raking procedure (cap 5, renormalise), not R's `trimWeights`, which spreads the
 * excess equally over the untrimmed weights instead of in proportion to them.
 */
export function trimWeights(weights: readonly number[], cap: number): TrimResult {
  checkWeights(weights)
  if (!(cap >= 1)) throw new RangeError(`the cap is at least 1, got ${cap}`)
  const n = weights.length
  const total = weights.reduce((s, w) => s + w, 0)
  const limit = n > 0 ? (cap * total) / n : 0
  const out = [...weights]
  const capped = new Array<boolean>(n).fill(false)
  let trimmed = false
  // Relative slack so that rounding never loops: a weight within 1e-12 of the limit counts as at the limit.
  const over = (w: number) => w > limit * (1 + 1e-12)
  for (let pass = 0; pass <= n; pass++) {
    let any = false
    for (let i = 0; i < n; i++)
      if (!capped[i] && over(out[i])) {
        capped[i] = true
        any = true
      }
    if (!any) break
    trimmed = true
    let cappedTotal = 0
    let freeTotal = 0
    for (let i = 0; i < n; i++) {
      if (capped[i]) {
        out[i] = limit
        cappedTotal += limit
      } else freeTotal += out[i]
    }
    const factor = freeTotal > 0 ? (total - cappedTotal) / freeTotal : 0
    for (let i = 0; i < n; i++) if (!capped[i]) out[i] *= factor
  }
  return { weights: out, trimmed, limit }
}

export interface KishSummary {
  sample_size: number
  weight_total: number
  /** (Σw)² / Σw², Kish (1965); 0 for no respondents. */
  effective_sample_size: number
  /** n / n_eff = 1 + CV²(w); null for no respondents. */
  design_effect: number | null
}

/** Kish's effective sample size and the design effect of unequal weights. */
export function kishSummary(weights: readonly number[]): KishSummary {
  checkWeights(weights)
  const n = weights.length
  const sum = weights.reduce((s, w) => s + w, 0)
  const squares = weights.reduce((s, w) => s + w * w, 0)
  const nEff = squares > 0 ? (sum * sum) / squares : 0
  return { sample_size: n, weight_total: sum, effective_sample_size: nEff, design_effect: nEff > 0 ? n / nEff : null }
}

/**
 * Residualises influence values over the calibration, as R's `svyrecvar` does before the variance:
 * post-stratified, each value loses its cell's mean (of z·b/w over Σb), scaled back by w; raked, the same with
 * plain means per category, over each margin in turn, RAKE_VARIANCE_PASSES times.
 */
/** Works on `z` in place and returns it. */
function residualise(z: number[], weights: readonly number[], calibration: Calibration): number[] {
  if (calibration.type === 'none') return z
  const out = z
  if (calibration.type === 'post-stratified') {
    const base = calibration.baseWeights ?? weights.map(() => 1)
    for (const members of groupsOf(calibration.cells).values()) {
      let numerator = 0
      let denominator = 0
      for (const i of members) {
        numerator += weights[i] > 0 ? (out[i] * base[i]) / weights[i] : 0
        denominator += base[i]
      }
      const mean = denominator > 0 ? numerator / denominator : 0
      for (const i of members) out[i] -= mean * weights[i]
    }
    return out
  }
  const groups = calibration.margins.map(groupsOf)
  for (let pass = 0; pass < RAKE_VARIANCE_PASSES; pass++)
    for (const margin of groups)
      for (const members of margin.values()) {
        let sum = 0
        for (const i of members) sum += weights[i] > 0 ? out[i] / weights[i] : 0
        const mean = sum / members.length
        for (const i of members) out[i] -= weights[i] * mean
      }
  return out
}

export interface Estimate {
  estimate: number | null
  /** Standard error; null with fewer than two respondents (one primary unit has no variance estimate). */
  se: number | null
  /** Z95 · se. */
  margin: number | null
}

/**
 * The weighted mean Σ w y / Σ w with its linearised standard error, as R's `svymean` on a one-stage design
 * with replacement: influence values z_i = w_i (y_i − ȳ) / Σw, residualised over the calibration, then
 * var = n/(n−1) · Σ (z_i − z̄)². With equal weights and no calibration this is the simple random sampling
 * formula s²/n (for a share: p(1−p)/(n−1)).
 */
export function designMean(values: ArrayLike<number>, weights: readonly number[], calibration: Calibration = { type: 'none' }): Estimate {
  const n = values.length
  let total = 0
  for (let i = 0; i < n; i++) total += weights[i]
  if (n === 0 || !(total > 0)) return { estimate: null, se: null, margin: null }
  let mean = 0
  for (let i = 0; i < n; i++) mean += (weights[i] * values[i]) / total
  if (n < 2) return { estimate: mean, se: null, margin: null }
  const influence = new Array<number>(n)
  for (let i = 0; i < n; i++) influence[i] = ((values[i] - mean) * weights[i]) / total
  const z = residualise(influence, weights, calibration)
  let zSum = 0
  for (let i = 0; i < n; i++) zSum += z[i]
  const zBar = zSum / n
  let squares = 0
  for (let i = 0; i < n; i++) squares += (z[i] - zBar) ** 2
  const variance = (n / (n - 1)) * squares
  // Rounding leaves about 1e-16 where the variance is zero (every cell unanimous): report that as 0.
  const se = variance > 1e-26 ? Math.sqrt(variance) : 0
  return { estimate: mean, se, margin: Z95 * se }
}

export type LevelKey = '1' | '2' | '3' | '4' | '5'
export const LEVEL_KEYS: readonly LevelKey[] = ['1', '2', '3', '4', '5']

export interface RatingEstimates {
  sample_size: number
  weight_total: number
  mean: Estimate
  /** Share (0..1) of each level 1..5 among the ratings, with its standard error and margin. */
  shares: Record<LevelKey, Estimate & { count: number; weighted_count: number }>
}

/**
 * The mean rating and the shares of levels 1..5 (each share the mean of a level indicator, so the same
 * estimator), weighted and calibrated as given. Ratings are 1..5; skips are not ratings and never reach here.
 */
export function ratingEstimates(
  ratings: readonly number[],
  weights: readonly number[],
  calibration: Calibration = { type: 'none' },
): RatingEstimates {
  if (ratings.length !== weights.length) throw new RangeError('one weight per rating')
  for (const r of ratings) if (!Number.isInteger(r) || r < 1 || r > 5) throw new RangeError(`a rating is 1..5, got ${r}`)
  checkWeights(weights)
  const total = weights.reduce((s, w) => s + w, 0)
  const indicator = new Uint8Array(ratings.length)
  const shares = Object.fromEntries(
    LEVEL_KEYS.map((key, level) => {
      let count = 0
      let weighted = 0
      for (let i = 0; i < ratings.length; i++) {
        const at = ratings[i] === level + 1 ? 1 : 0
        indicator[i] = at
        count += at
        weighted += weights[i] * at
      }
      return [key, { ...designMean(indicator, weights, calibration), count, weighted_count: weighted }]
    }),
  ) as RatingEstimates['shares']
  return { sample_size: ratings.length, weight_total: total, mean: designMean(ratings, weights, calibration), shares }
}

/** The same figures with every weight 1 and no calibration: the simple random sampling formulas. */
export function unweightedRatingEstimates(ratings: readonly number[]): RatingEstimates {
  return ratingEstimates(
    ratings,
    ratings.map(() => 1),
  )
}

/** The largest 95 % margin among the five shares, in percentage points; null when none is defined. */
export function largestShareMargin(estimates: RatingEstimates): number | null {
  let largest: number | null = null
  for (const key of LEVEL_KEYS) {
    const margin = estimates.shares[key].margin
    if (margin !== null) largest = Math.max(largest ?? 0, margin * 100)
  }
  return largest
}
