import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { UrlBuilder } from '../../http/urls.ts'
import { loadQuestions, overallResult, type WeightingOptions } from '../weighting/weighting.service.ts'
import { toChoiceResult, toLikertResult } from './survey-results.mapper.ts'
import { surveyResultsRepository, type ChoiceCountRow, type SurveyQuestionRow } from './survey-results.repository.ts'
import type { SurveyResult } from './survey-results.schemas.ts'

/**
 * The results of a list of questions, in the list's order: likert questions through the census weighting
 * (overallResult on loadQuestions' batch), multiple-choice questions from their choices' picks. Three statements
 * whatever the number of questions (answers, census, choices); none for an empty list.
 */
export async function surveyResults(
  db: Kysely<Database>,
  questions: SurveyQuestionRow[],
  options: WeightingOptions,
  urls: UrlBuilder,
): Promise<SurveyResult[]> {
  if (questions.length === 0) return []
  const likert = questions.filter((q) => q.subtype !== 'mcq').map((q) => q.id)
  const mcq = questions.filter((q) => q.subtype === 'mcq').map((q) => q.id)
  const [loaded, choices] = await Promise.all([loadQuestions(db, likert), surveyResultsRepository(db).choiceCounts(mcq)])
  const choicesOf = new Map<number, ChoiceCountRow[]>()
  for (const choice of choices) {
    const list = choicesOf.get(choice.question_id)
    if (list) list.push(choice)
    else choicesOf.set(choice.question_id, [choice])
  }
  return questions.map((question) =>
    question.subtype === 'mcq'
      ? toChoiceResult(question, choicesOf.get(question.id) ?? [], urls)
      : toLikertResult(question, overallResult(loaded.get(question.id)!, options), urls),
  )
}
