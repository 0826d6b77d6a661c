import {
  kishSummary,
  largestShareMargin,
  LEVEL_KEYS,
  postStratificationWeights,
  rakeWeights,
  ratingEstimates,
  trimWeights,
  unweightedRatingEstimates,
  type Calibration,
  type LevelKey,
  type RatingEstimates,
} from './weighting.ts'

/**
 * The survey design of a weighted result (docs/statistics.md, "Weighting to the census"): which weights a group
 * of ratings gets from its cells and their census populations, and the figures they give. Pure, like weighting.ts;
 * which respondents count (the disclosure rules) and which age bands there are is the caller's business.
 */

export interface ShareResult {
  /** Unweighted share of the ratings at this level, 0..100; null without ratings. */
  percentage: number | null
  /** 95 % margin of the unweighted share, in percentage points (simple random sampling). */
  margin: number | null
  /** Census-weighted share, 0..100. */
  weighted_percentage: number | null
  /** 95 % margin of the weighted share, in percentage points (design-based, crediting the calibration). */
  weighted_margin: number | null
  /** Ratings at this level. */
  count: number
  /** Sum of the weights of the weighted respondents at this level: the population they stand for. */
  weighted_count: number
}

export interface WeightedQuestionResult {
  /** Ratings given (skips not included). */
  sample_size: number
  /** Explicit skips, counted apart: no mean or share includes them. */
  skipped: number
  /** Ratings behind the weighted figures: sample_size minus excluded. */
  weighted_sample_size: number
  /** Ratings left out of the weighted figures: unknown age (no date of birth), no region with a census record, or a census cell of no people. */
  excluded: number
  /** Kish: (Σw)² / Σw² of the final weights; 0 without weighted respondents. */
  effective_sample_size: number
  /** weighted_sample_size / effective_sample_size; null without weighted respondents. */
  design_effect: number | null
  /** Null when nobody could be weighted. */
  method: 'post-stratified' | 'raked' | null
  /**
   * Post-stratified on the age band x region cells that have respondents only, because raking could not meet both
   * margins: the weighted figures then stand for the people of those cells, not of every band and region present.
   */
  partial: boolean
  /** Whether trimming capped any weight (the weighted margins then take the weights as fixed). */
  trimmed: boolean
  average_vote: number | null
  /** 95 % margin of the mean rating, in rating points. */
  average_vote_margin: number | null
  weighted_average_vote: number | null
  weighted_average_vote_margin: number | null
  shares: Record<LevelKey, ShareResult>
}

export const percent = (share: number | null) => (share === null ? null : share * 100)

export interface WeightedGroup {
  weights: number[]
  calibration: Calibration
  trimmed: boolean
  method: 'post-stratified' | 'raked'
  /** Post-stratified on the cells with respondents only, leaving out people of the census cells nobody answered from. */
  partial: boolean
}

/** Post-stratified weights over the given cells, trimmed; the calibration the variance credits (none once trimmed). */
export function postStratifiedGroup(cells: number[], population: Map<number, number>, weightCap: number): WeightedGroup {
  const trimmed = trimWeights(postStratificationWeights(cells, population), weightCap)
  return {
    weights: trimmed.weights,
    calibration: trimmed.trimmed ? { type: 'none' } : { type: 'post-stratified', cells },
    trimmed: trimmed.trimmed,
    method: 'post-stratified',
    partial: false,
  }
}

/** The age band x region cells of a group of respondents, with their census populations and margins. */
export interface CellDesign {
  /** Each respondent's cell (region x band key). */
  cells: number[]
  /** Census population of each cell of the bands x regions present (cells of no people left out). */
  population: Map<number, number>
  bandTargets: Map<number, number>
  regionTargets: Map<number, number>
  /** Null without respondents. */
  group: WeightedGroup | null
}

/**
 * The weights of respondents in cells age band x region (`bandOf`, `regionOf`; `bandPopulations` gives each region's
 * census population of each of `bandCount` bands). When every cell of the bands and regions present that has people
 * holds at least minCellSize respondents, post-stratified (w = N_h / n_h); otherwise raked to the age-band and
 * region margins of the same cells' census populations, or, when raking cannot meet both margins, post-stratified on
 * the cells that have respondents. Then trimmed at weightCap times the mean weight.
 */
export function cellDesign(
  bandOf: number[],
  regionOf: number[],
  bandPopulations: Map<number, number[]>,
  bandCount: number,
  options: { minCellSize: number; weightCap: number },
): CellDesign {
  const cellKey = (band: number, region: number) => region * bandCount + band
  const cells = bandOf.map((band, i) => cellKey(band, regionOf[i]))
  const counts = new Map<number, number>()
  for (const cell of cells) counts.set(cell, (counts.get(cell) ?? 0) + 1)
  const population = new Map<number, number>()
  const bandTargets = new Map<number, number>()
  const regionTargets = new Map<number, number>()
  let enough = true
  for (const band of new Set(bandOf))
    for (const region of new Set(regionOf)) {
      const N = bandPopulations.get(region)![band]
      if (N <= 0) continue
      population.set(cellKey(band, region), N)
      bandTargets.set(band, (bandTargets.get(band) ?? 0) + N)
      regionTargets.set(region, (regionTargets.get(region) ?? 0) + N)
      if ((counts.get(cellKey(band, region)) ?? 0) < options.minCellSize) enough = false
    }
  let group: WeightedGroup | null = null
  if (cells.length > 0) {
    const raked = enough ? null : rakeWeights([bandOf, regionOf], [bandTargets, regionTargets])
    if (raked?.converged) {
      const trimmed = trimWeights(raked.weights, options.weightCap)
      group = {
        weights: trimmed.weights,
        calibration: trimmed.trimmed ? { type: 'none' } : { type: 'raked', margins: [bandOf, regionOf] },
        trimmed: trimmed.trimmed,
        method: 'raked',
        partial: false,
      }
    } else {
      // Every cell full enough; or no weights meet both margins (the respondents' cells do not link every band
      // to every region): post-stratify on the cells that have respondents, leaving the empty ones out.
      group = { ...postStratifiedGroup(cells, population, options.weightCap), partial: raked !== null }
    }
  }
  return { cells, population, bandTargets, regionTargets, group }
}

/**
 * The weighted result: unweighted figures over every rating, weighted ones over the eligible ratings with the
 * group's weights.
 */
export function weightedResult(
  ratings: number[],
  skipped: number,
  eligible: number[],
  group: WeightedGroup | null,
): WeightedQuestionResult {
  const plain = unweightedRatingEstimates(ratings)
  const weighted = group ? ratingEstimates(eligible, group.weights, group.calibration) : unweightedRatingEstimates([])
  const kish = kishSummary(group?.weights ?? [])
  return {
    sample_size: ratings.length,
    skipped,
    weighted_sample_size: eligible.length,
    excluded: ratings.length - eligible.length,
    effective_sample_size: kish.effective_sample_size,
    design_effect: kish.design_effect,
    method: group?.method ?? null,
    partial: group?.partial ?? false,
    trimmed: group?.trimmed ?? false,
    average_vote: plain.mean.estimate,
    average_vote_margin: plain.mean.margin,
    weighted_average_vote: weighted.mean.estimate,
    weighted_average_vote_margin: weighted.mean.margin,
    shares: Object.fromEntries(
      LEVEL_KEYS.map((key) => [
        key,
        {
          percentage: percent(plain.shares[key].estimate),
          margin: percent(plain.shares[key].margin),
          weighted_percentage: percent(weighted.shares[key].estimate),
          weighted_margin: percent(weighted.shares[key].margin),
          count: plain.shares[key].count,
          weighted_count: weighted.shares[key].weighted_count,
        },
      ]),
    ) as Record<LevelKey, ShareResult>,
  }
}

/** A breakdown row's figures: post-stratified on one variable's cells, weights trimmed. */
export interface GroupFigures {
  plain: RatingEstimates
  weighted: RatingEstimates
  weights: number[]
  effective_sample_size: number
  /** Largest 95 % margin among the five shares, percentage points. */
  error_margin: number | null
  error_margin_weighted: number | null
}

/** Figures of `ratings` post-stratified on `cells` to `population`; no weights without ratings. */
export function postStratifiedFigures(
  ratings: number[],
  cells: number[],
  population: Map<number, number>,
  weightCap: number,
  plainRatings: number[] = ratings,
): GroupFigures {
  const plain = unweightedRatingEstimates(plainRatings)
  let weighted = unweightedRatingEstimates([])
  let weights: number[] = []
  if (ratings.length > 0) {
    const group = postStratifiedGroup(cells, population, weightCap)
    weights = group.weights
    weighted = ratingEstimates(ratings, weights, group.calibration)
  }
  return {
    plain,
    weighted,
    weights,
    effective_sample_size: kishSummary(weights).effective_sample_size,
    error_margin: largestShareMargin(plain),
    error_margin_weighted: largestShareMargin(weighted),
  }
}
