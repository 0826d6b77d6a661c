import { WITHHELD, type Release } from '../../disclosure/release.ts'
import { AGE_BANDS, ageBandIndex, bandPopulations } from '../demographics/age-bands.ts'
import { bandKey, bandTree } from '../demographics/demographics.service.ts'
import { LEVEL_KEYS, type LevelKey } from '../../engines/statistics/weighting.ts'
import { percent, postStratifiedFigures } from '../../engines/statistics/weighting-design.ts'
import {
  ageFiltered,
  bandPopulationsWithin,
  counts,
  inAgeRange,
  scopeOf,
  type LoadedQuestion,
  type Respondent,
  type WeightingOptions,
} from './weighting.service.ts'

/** The age and area breakdowns of a weighted result: one row per age band, one entry per region. */

export interface AgePoint {
  /** The band's first age (the chart plots it); `age_range` its label. */
  age: number
  age_range: string
  /** Ratings in the band, as released. */
  sample_size: number
  /** Of those, the respondents with a region with a census record: those behind the weighted figures. */
  weighted_sample_size: number
  effective_sample_size: number
  average_vote: number | null
  weighted_average_vote: number | null
  /** Largest 95 % margin among the five unweighted shares, percentage points (simple random sampling). */
  error_margin: number | null
  /** Largest 95 % margin among the five weighted shares, percentage points (post-stratified on region). */
  error_margin_weighted: number | null
  weighted_vote_breakdown: Record<LevelKey, number | null>
}

/**
 * One row per age band (at answering) published by question_demographics's release of the same answers (same tree,
 * same headcounts, so that neither answer can be subtracted from the other): its public ratings and, when the band
 * shows them, the private ones its cells count. Within a band the respondents are post-stratified on their region
 * (the region's census population in the band), trimmed like every weight.
 */
export function ageBreakdown(loaded: LoadedQuestion, options: WeightingOptions): AgePoint[] {
  const k = options.minCellSize
  const tree = bandTree(
    loaded.respondents.map((r) => ({
      band: ageBandIndex(r.age),
      gender: 0,
      region: r.region,
      private: r.private === true,
      choice_id: null,
      value: r.rating,
      count: 1,
    })),
    k,
  )
  const points: AgePoint[] = []
  AGE_BANDS.forEach((band, index) => {
    const release = tree.releases.get(bandKey(index)) ?? WITHHELD
    if (!release.published) return
    const members = loaded.respondents.filter(
      (r) =>
        r.rating !== null &&
        r.age !== null &&
        ageBandIndex(r.age) === index &&
        (!r.private || (release.withPrivate && tree.scope.counts({ band: index, region: r.region, private: true }))),
    )
    if (members.length === 0) return
    const populationOf = (region: number) => bandPopulations(loaded.census.get(region)!)[index]
    const eligible = members.filter((r) => r.region !== null && loaded.census.has(r.region) && populationOf(r.region) > 0)
    const cells = eligible.map((r) => r.region!)
    const { plain, weighted, effective_sample_size, error_margin, error_margin_weighted } = postStratifiedFigures(
      eligible.map((r) => r.rating!),
      cells,
      new Map(cells.map((region) => [region, populationOf(region)])),
      options.weightCap,
      members.map((r) => r.rating!),
    )
    points.push({
      age: band.from,
      age_range: band.label,
      sample_size: members.length,
      weighted_sample_size: eligible.length,
      effective_sample_size,
      average_vote: plain.mean.estimate,
      weighted_average_vote: weighted.mean.estimate,
      error_margin,
      error_margin_weighted,
      weighted_vote_breakdown: Object.fromEntries(LEVEL_KEYS.map((key) => [key, percent(weighted.shares[key].estimate)])) as Record<
        LevelKey,
        number | null
      >,
    })
  })
  return points
}

function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>()
  for (const item of items) {
    const k = key(item)
    const members = groups.get(k)
    if (members) members.push(item)
    else groups.set(k, [item])
  }
  return new Map([...groups].sort((a, b) => a[0] - b[0]))
}

export interface AreaPoint {
  region_id: number
  /** Ratings of the region's respondents of known age (in the age range asked): those behind every figure. */
  sample_size: number
  effective_sample_size: number
  average_vote: number | null
  weighted_average_vote: number | null
  /** Largest 95 % margin among the five weighted shares, percentage points (post-stratified on age band). */
  error_margin: number | null
  /** The same for the unweighted shares (simple random sampling). */
  error_margin_unweighted: number | null
  weighted_vote_breakdown: Record<LevelKey, { percentage: number | null; weighted_raw: number }>
}

/**
 * One entry per region with a census record that has rated respondents of known age (in the age range asked), and
 * that question_geographics publishes (`regions`, its release of the same answers): its public answers and, when
 * the region shows them, the private ones its cells count. With an age range, public answers only, and a region
 * only with at least k of them in the range. Post-stratified on age band (age when answering) to the region's
 * census, bands clipped to the age range.
 */
export function areaBreakdown(loaded: LoadedQuestion, options: WeightingOptions, regions: Map<number, Release>): AreaPoint[] {
  const lo = options.voterAgeGte ?? 0
  const hi = options.voterAgeLte ?? Infinity
  const k = options.minCellSize
  const filtered = ageFiltered(options)
  const scope = scopeOf(loaded, k)
  const inRange = new Map<number, number>()
  if (filtered)
    for (const r of loaded.respondents)
      if (!r.private && r.region !== null && inAgeRange(r.age, options)) inRange.set(r.region, (inRange.get(r.region) ?? 0) + 1)
  const shown = (r: Respondent) => {
    const release = regions.get(r.region!) ?? WITHHELD
    if (!release.published || (filtered && (inRange.get(r.region!) ?? 0) < k)) return false
    return !r.private || (!filtered && release.withPrivate && counts(scope, r))
  }
  const eligible = loaded.respondents.filter(
    (r) =>
      r.rating !== null && r.age !== null && r.region !== null && loaded.census.has(r.region) && inAgeRange(r.age, options) && shown(r),
  )
  const points: AreaPoint[] = []
  for (const [region, members] of groupBy(eligible, (r) => r.region!)) {
    const populations = bandPopulationsWithin(loaded.census.get(region)!, lo, hi)
    const weightedMembers = members.filter((r) => populations[ageBandIndex(r.age)!] > 0)
    if (weightedMembers.length === 0) continue
    const cells = weightedMembers.map((r) => ageBandIndex(r.age)!)
    const population = new Map(cells.map((band) => [band, populations[band]]))
    const figures = postStratifiedFigures(
      weightedMembers.map((r) => r.rating!),
      cells,
      population,
      options.weightCap,
    )
    const { plain, weighted } = figures
    points.push({
      region_id: region,
      sample_size: weightedMembers.length,
      effective_sample_size: figures.effective_sample_size,
      average_vote: plain.mean.estimate,
      weighted_average_vote: weighted.mean.estimate,
      error_margin: figures.error_margin_weighted,
      error_margin_unweighted: figures.error_margin,
      weighted_vote_breakdown: Object.fromEntries(
        LEVEL_KEYS.map((key) => [
          key,
          { percentage: percent(weighted.shares[key].estimate), weighted_raw: weighted.shares[key].weighted_count },
        ]),
      ) as AreaPoint['weighted_vote_breakdown'],
    })
  }
  return points
}
