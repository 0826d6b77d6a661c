import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Question } from '../questions/questions.schemas.ts'
import { loadQuestions, overallResult, type WeightingOptions } from '../weighting/weighting.service.ts'
import { ageBreakdown } from '../weighting/weighting-breakdowns.service.ts'
import { weightedResultSvg } from '../weighting/weighting.svg.ts'

/**
 * Each likert question's census-weighted picture for a shared page: the shares as answered and weighted with their
 * margins, and the weighted mean of each age band, as `question_weighted_demographics/<id>/age/?format=svg` draws them
 * (the same disclosure rules). Two statements for the whole page, whatever the number of questions (loadQuestions).
 */
export async function weightedPictures(
  db: Kysely<Database>,
  questions: Pick<Question, 'id' | 'subtype'>[],
  options: WeightingOptions,
): Promise<Map<number, string>> {
  const likert = questions.filter((question) => question.subtype !== 'mcq').map((question) => question.id)
  if (likert.length === 0) return new Map()
  const loaded = await loadQuestions(db, likert)
  return new Map(
    likert.map((id) => {
      const answers = loaded.get(id)!
      return [id, weightedResultSvg({ qid: id, data: ageBreakdown(answers, options), overall: overallResult(answers, options) })]
    }),
  )
}
