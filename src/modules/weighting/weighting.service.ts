import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { AGE_BANDS, ageBandIndex, bandPopulations } from '../demographics/age-bands.ts'
import { questionScope, type QuestionScope } from '../demographics/disclosure.ts'
import { cellDesign, weightedResult, type WeightedGroup, type WeightedQuestionResult } from '../../engines/statistics/weighting-design.ts'
import { weightingBatchRepository, weightingRepository, type AreaCensusRow, type RespondentRow } from './weighting.repository.ts'

/**
 * Census-weighted results of a likert question (docs/statistics.md, "Weighting to the census"). The SQL loads
 * the answers with their authors' date of birth and region, and the newest census of those regions, in two
 * statements; the design arithmetic is src/engines/statistics (weighting-design.ts, weighting.ts); what stays here is
 * which respondents count (the disclosure rules of question_demographics) and which age band each falls in.
 */

export interface WeightingOptions {
  /** Weights are trimmed to at most this multiple of their mean (config.weightCap, WEIGHT_CAP). */
  weightCap: number
  /**
   * k of the disclosure rules (config.minCellSize): private answers count only where k of them are together, rows
   * describe at least k respondents. Also the overall result post-stratifies on age band x area only when every cell
   * holds at least this many respondents.
   */
  minCellSize: number
  /** Only respondents whose age when answering is at least this (whole years); public answers only. */
  voterAgeGte?: number
  /** Only respondents whose age when answering is at most this. */
  voterAgeLte?: number
}

/** The service's weighting options (WEIGHT_CAP, MIN_CELL_SIZE), with any narrowing a request adds. */
export function weightingOptions(
  config: Pick<WeightingOptions, 'weightCap' | 'minCellSize'>,
  extra: Partial<WeightingOptions> = {},
): WeightingOptions {
  return { weightCap: config.weightCap, minCellSize: config.minCellSize, ...extra }
}

/** One answer ready for weighting. */
export interface Respondent {
  /** 1..5; null for a skip. */
  rating: number | null
  /** Whole years when answering; null when unknown. */
  age: number | null
  region: number | null
  /** A private answer: counted only as the disclosure rules allow. */
  private?: boolean
}

export interface LoadedQuestion {
  respondents: Respondent[]
  /** Newest census ages (0..90) by region id. */
  census: Map<number, number[]>
}

/** Adds a group's respondents, one entry each (the arithmetic is per respondent, as R's on the same rows). */
function addRespondents(row: RespondentRow, to: Respondent[]): void {
  const age = row.age === null ? null : Number(row.age)
  const respondent: Respondent = {
    rating: row.value === null ? null : Number(row.value),
    age: ageBandIndex(age) === null ? null : age,
    region: row.region_id === null ? null : Number(row.region_id),
    private: row.private === true,
  }
  for (let i = 0; i < row.count; i++) to.push(respondent)
}

/** The distinct regions the respondents live in. */
const regionsOf = (rows: RespondentRow[]): number[] => [
  ...new Set(rows.flatMap((row) => (row.region_id === null ? [] : [Number(row.region_id)]))),
]

/** Two statements: the answers with their authors' age and region, then the newest census of those regions. */
export async function loadQuestion(db: Kysely<Database>, questionId: number): Promise<LoadedQuestion> {
  const repository = weightingRepository(db)
  const rows = await repository.respondents(questionId)
  const census = await repository.regionCensus(regionsOf(rows))
  const respondents: Respondent[] = []
  for (const row of rows) addRespondents(row, respondents)
  return { respondents, census: new Map(census.map((row: AreaCensusRow) => [row.area_id, row.ages])) }
}

/**
 * loadQuestion for many questions in two statements (the answers of all of them, the census of all their
 * regions), whatever their number: a Map from each question id to the LoadedQuestion overallResult takes. A
 * question without answers gets no respondents. The census map is shared by every question and holds the regions of
 * all their respondents; overallResult only looks up the regions of a question's own respondents, so the result is
 * the same as loadQuestion's. No statement for an empty list.
 */
export async function loadQuestions(db: Kysely<Database>, questionIds: number[]): Promise<Map<number, LoadedQuestion>> {
  const ids = [...new Set(questionIds)]
  if (ids.length === 0) return new Map()
  const rows = await weightingBatchRepository(db).respondentsOf(ids)
  const censusRows = await weightingRepository(db).regionCensus(regionsOf(rows))
  const census = new Map(censusRows.map((row: AreaCensusRow) => [row.area_id, row.ages]))
  const loaded = new Map<number, LoadedQuestion>(ids.map((id) => [id, { respondents: [], census }]))
  for (const row of rows) {
    const question = loaded.get(Number(row.question_id))
    if (question) addRespondents(row, question.respondents)
  }
  return loaded
}

/**
 * Population of each age band within the ages [lo, hi]: bandPopulations when the range is whole; otherwise each
 * band clipped to the range (the "90 and over" count stands for every age from 90).
 */
export function bandPopulationsWithin(ages: readonly number[], lo = 0, hi = Infinity): number[] {
  if (lo <= 0 && hi === Infinity) return bandPopulations(ages)
  return AGE_BANDS.map((band) => {
    const from = Math.max(band.from, lo)
    const to = Math.min(band.to, hi)
    if (from > to) return 0
    let total = 0
    for (let age = from; age <= Math.min(to, 89); age++) total += Number(ages[age] ?? 0)
    if (to >= 90) total += Number(ages[90] ?? 0)
    return total
  })
}

export const ageFiltered = (options: Pick<WeightingOptions, 'voterAgeGte' | 'voterAgeLte'>) =>
  options.voterAgeGte !== undefined || options.voterAgeLte !== undefined

export function inAgeRange(age: number | null, options: Pick<WeightingOptions, 'voterAgeGte' | 'voterAgeLte'>): boolean {
  if (!ageFiltered(options)) return true
  if (age === null) return false
  return (
    (options.voterAgeGte === undefined || age >= options.voterAgeGte) && (options.voterAgeLte === undefined || age <= options.voterAgeLte)
  )
}

/** The question's scope (src/modules/demographics/disclosure.ts) over its respondents: one group each. */
export function scopeOf(loaded: LoadedQuestion, k: number): QuestionScope {
  return questionScope(
    loaded.respondents.map((r) => ({ band: ageBandIndex(r.age), region: r.region, private: r.private === true, count: 1 })),
    k,
  )
}

export const counts = (scope: QuestionScope, r: Respondent) =>
  scope.counts({ band: ageBandIndex(r.age), region: r.region, private: r.private === true })

/**
 * Whom the overall result counts. Unweighted figures: every public answer, and every private one once the question
 * holds k (as the question's own figures). Weighted figures tell the age band x region cells apart, so of the
 * private answers they count those of the cells released with them (src/modules/demographics/disclosure.ts). With
 * an age range (a population the caller chooses), public answers in it only.
 */
export function overallRespondents(loaded: LoadedQuestion, options: WeightingOptions): { plain: Respondent[]; weighable: Respondent[] } {
  if (ageFiltered(options)) {
    const chosen = loaded.respondents.filter((r) => !r.private && inAgeRange(r.age, options))
    return { plain: chosen, weighable: chosen }
  }
  const scope = scopeOf(loaded, options.minCellSize)
  return {
    plain: loaded.respondents.filter((r) => !r.private || scope.rootRelease.withPrivate),
    weighable: loaded.respondents.filter((r) => counts(scope, r)),
  }
}

/** What the overall result weights: the ratings behind the weighted figures, their cells, targets and weights. */
export interface OverallDesign {
  /** Ratings chosen (age range), skips left out. */
  ratings: number[]
  skipped: number
  /** The ratings that can be weighted, with each one's age band, region and cell (region x band key). */
  eligible: number[]
  bandOf: number[]
  regionOf: number[]
  cells: number[]
  /** Census population of each cell of the bands x regions present (cells of no people left out). */
  population: Map<number, number>
  bandTargets: Map<number, number>
  regionTargets: Map<number, number>
  /** Null without eligible ratings. */
  group: WeightedGroup | null
}

/**
 * The weights of the overall result: respondents of known age and a region with a census record fall in cells
 * age band x region. When every cell of the bands and regions present that has people holds at least
 * minCellSize respondents, post-stratified (w = N_h / n_h); otherwise raked to the age-band and region margins
 * of the same cells' census populations, or, when raking cannot meet both margins, post-stratified on the cells
 * that have respondents. Then trimmed at weightCap times the mean weight.
 */
export function overallDesign(loaded: LoadedQuestion, options: WeightingOptions): OverallDesign {
  const lo = options.voterAgeGte ?? 0
  const hi = options.voterAgeLte ?? Infinity
  const { plain: chosen, weighable } = overallRespondents(loaded, options)
  const rated = chosen.filter((r) => r.rating !== null)
  const bands = new Map<number, number[]>()
  for (const [region, ages] of loaded.census) bands.set(region, bandPopulationsWithin(ages, lo, hi))
  const eligible = weighable.filter((r) => {
    if (r.rating === null) return false
    if (r.age === null || r.region === null) return false
    const populations = bands.get(r.region)
    return populations !== undefined && populations[ageBandIndex(r.age)!] > 0
  })
  const bandOf = eligible.map((r) => ageBandIndex(r.age)!)
  const regionOf = eligible.map((r) => r.region!)
  const { cells, population, bandTargets, regionTargets, group } = cellDesign(bandOf, regionOf, bands, AGE_BANDS.length, options)
  return {
    ratings: rated.map((r) => r.rating!),
    skipped: chosen.length - rated.length,
    eligible: eligible.map((r) => r.rating!),
    bandOf,
    regionOf,
    cells,
    population,
    bandTargets,
    regionTargets,
    group,
  }
}

/** The overall weighted result from loaded answers (overallDesign's weights; unweighted figures over every rating). */
export function overallResult(loaded: LoadedQuestion, options: WeightingOptions): WeightedQuestionResult {
  const { group, ratings, skipped, eligible } = overallDesign(loaded, options)
  return weightedResult(ratings, skipped, eligible, group)
}

/**
 * The overall census-weighted result of a likert question: all its current ratings (public and private),
 * post-stratified on age band (age when answering) x region where every cell holds at least
 * `options.minCellSize` respondents, else raked on the two margins; weights trimmed at `options.weightCap`
 * times their mean. Respondents of unknown age or without a region with a census record are left out of the
 * weighted figures and counted in `excluded`. Skips are counted in `skipped` and nowhere else. A question
 * without ratings gives sample sizes 0 and null means, shares and margins.
 *
 * It does not check that the caller may see the question: callers do (questionVisibleSql). Two SQL statements.
 * Stable signature: survey_results builds on it.
 */
export async function weightedQuestionResult(
  db: Kysely<Database>,
  questionId: number,
  options: WeightingOptions,
): Promise<WeightedQuestionResult> {
  return overallResult(await loadQuestion(db, questionId), options)
}
