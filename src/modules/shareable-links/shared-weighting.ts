import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Question } from '../questions/questions.schemas.ts'
import { ratingAreaReleases } from '../demographics/demographics.service.ts'
import { loadQuestions, overallResult, type WeightingOptions } from '../weighting/weighting.service.ts'
import { ageBreakdown, areaBreakdown } from '../weighting/weighting-breakdowns.service.ts'
import { weightingRepository } from '../weighting/weighting.repository.ts'
import { weightedAreaSvg, weightedResultSvg } from '../weighting/weighting.svg.ts'

/**
 * Each likert question's census-weighted pictures for a shared page, as `question_weighted_demographics/<id>/age/`
 * and `.../area/` draw them with `?format=svg` (the same disclosure rules): the shares as answered and weighted
 * with their margins and the weighted mean of each age band; then, when the question's map publishes a region,
 * the weighted mean of each region. Four statements for the whole page, whatever the number of questions: the
 * answers (loadQuestions, two), the regions' releases and the regions' names.
 */
export async function weightedPictures(
  db: Kysely<Database>,
  questions: Pick<Question, 'id' | 'subtype'>[],
  options: WeightingOptions,
): Promise<Map<number, string[]>> {
  const likert = questions.filter((question) => question.subtype !== 'mcq').map((question) => question.id)
  if (likert.length === 0) return new Map()
  const [loaded, releases] = await Promise.all([loadQuestions(db, likert), ratingAreaReleases(db, likert, options.minCellSize)])
  const answers = likert.map((id) => {
    const question = loaded.get(id)!
    const overall = overallResult(question, options)
    return {
      id,
      age: { qid: id, data: ageBreakdown(question, options), overall },
      area: { qid: id, data: areaBreakdown(question, options, releases.get(id)!.releases), overall },
    }
  })
  const regions = answers.flatMap(({ area }) => area.data.map((point) => point.region_id))
  const names = regions.length > 0 ? await weightingRepository(db).areaNames([...new Set(regions)]) : new Map<number, string>()
  return new Map(
    answers.map(({ id, age, area }) => [
      id,
      area.data.length > 0 ? [weightedResultSvg(age), weightedAreaSvg(area, names)] : [weightedResultSvg(age)],
    ]),
  )
}
