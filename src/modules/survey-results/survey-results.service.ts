import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { publishedCells, releaseWhole } from '../../disclosure/release.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { LEVEL_KEYS } from '../../engines/statistics/weighting.ts'
import { loadQuestions, overallResult, type WeightingOptions } from '../weighting/weighting.service.ts'
import { toChoiceResult, toLikertResult, type SurveyOutcome } from './survey-results.mapper.ts'
import { surveyResultsRepository, type ChoiceCountRow, type SurveyQuestionRow } from './survey-results.repository.ts'

/** A multiple-choice question's picks and skips per choice, its private ones only once it holds k of them. */
function shownChoices(choices: ChoiceCountRow[], k: number): ChoiceCountRow[] {
  const count = {
    public: choices.reduce((sum, c) => sum + c.count + c.skipped, 0),
    private: choices.reduce((sum, c) => sum + c.private_count + c.private_skipped, 0),
  }
  if (!releaseWhole(count, k).withPrivate) return choices
  return choices.map((c) => ({ ...c, count: c.count + c.private_count, skipped: c.skipped + c.private_skipped }))
}

/**
 * The results of a list of questions, in the list's order: likert questions through the census weighting
 * (overallResult on loadQuestions' batch, which applies the disclosure rules as question_weighted_demographics does),
 * multiple-choice questions from their choices' picks. Each question is a whole: its private answers count only
 * once it holds k of them (as its own figures do); then a level or choice of fewer than k answers is withheld, with
 * the smallest others while the withheld ones hold 1..k-1 (publishedCells: the total is published). Three statements
 * whatever the number of questions (answers, census, choices); none for an empty list.
 */
export async function surveyResults(
  db: Kysely<Database>,
  questions: SurveyQuestionRow[],
  options: WeightingOptions,
  urls: UrlBuilder,
): Promise<SurveyOutcome[]> {
  if (questions.length === 0) return []
  const k = options.minCellSize
  const repository = surveyResultsRepository(db)
  const likert = questions.filter((q) => q.subtype !== 'mcq').map((q) => q.id)
  const mcq = questions.filter((q) => q.subtype === 'mcq').map((q) => q.id)
  const [loaded, choices] = await Promise.all([loadQuestions(db, likert), repository.choiceCounts(mcq)])
  const choicesOf = groupBy(choices, (choice) => choice.question_id)
  return questions.map((question) => {
    if (question.subtype === 'mcq') {
      const own = choicesOf.get(question.id) ?? []
      const shown = shownChoices(own, k)
      const picks = shown.reduce((sum, c) => sum + c.count, 0)
      const published = publishedCells(
        shown.map((c) => c.count),
        k,
        picks,
      )
      return { result: toChoiceResult(question, shown, published, urls), choices: own.map(({ id, text }) => ({ id, text })) }
    }
    const result = overallResult(loaded.get(question.id)!, options)
    const published = publishedCells(
      LEVEL_KEYS.map((key) => result.shares[key].count),
      k,
      result.sample_size,
    )
    return { result: toLikertResult(question, result, published, urls), choices: null }
  })
}

function groupBy<T>(items: T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>()
  for (const item of items) {
    const list = groups.get(key(item))
    if (list) list.push(item)
    else groups.set(key(item), [item])
  }
  return groups
}
