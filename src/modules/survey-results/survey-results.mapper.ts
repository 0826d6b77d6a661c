import type { UrlBuilder } from '../../http/urls.ts'
import { csvDocument } from '../demographics/demographics.mapper.ts'
import { LEVEL_KEYS } from '../statistics/compute/weighting.ts'
import type { WeightedQuestionResult } from '../weighting/weighting.service.ts'
import type { ChoiceCountRow, SurveyQuestionRow } from './survey-results.repository.ts'
import type { SurveyResult } from './survey-results.schemas.ts'

export { CSV_TYPE } from '../demographics/demographics.mapper.ts'

const levels = <T>(value: (key: (typeof LEVEL_KEYS)[number]) => T) =>
  Object.fromEntries(LEVEL_KEYS.map((key) => [key, value(key)])) as Record<(typeof LEVEL_KEYS)[number], T>

/** A likert question: the fields of weightedQuestionResult, split into the direct and the weighted figures. */
export function toLikertResult(question: SurveyQuestionRow, result: WeightedQuestionResult, urls: UrlBuilder): SurveyResult {
  return {
    id: question.id,
    url: urls.detail('questions', question.id),
    question: question.question,
    subtype: question.subtype,
    sample_size: result.sample_size,
    skipped: result.skipped,
    direct: {
      average_vote: result.average_vote,
      average_vote_margin: result.average_vote_margin,
      shares: levels((key) => ({
        count: result.shares[key].count,
        percentage: result.shares[key].percentage,
        margin: result.shares[key].margin,
      })),
    },
    weighted: {
      method: result.method,
      partial: result.partial,
      trimmed: result.trimmed,
      weighted_sample_size: result.weighted_sample_size,
      excluded: result.excluded,
      effective_sample_size: result.effective_sample_size,
      design_effect: result.design_effect,
      weighted_average_vote: result.weighted_average_vote,
      weighted_average_vote_margin: result.weighted_average_vote_margin,
      shares: levels((key) => ({
        weighted_percentage: result.shares[key].weighted_percentage,
        weighted_margin: result.shares[key].weighted_margin,
        weighted_count: result.shares[key].weighted_count,
      })),
    },
    choices: null,
  }
}

/** A multiple-choice question: each choice's picks and share of the picks (skips counted apart); not weighted. */
export function toChoiceResult(question: SurveyQuestionRow, choices: ChoiceCountRow[], urls: UrlBuilder): SurveyResult {
  const picks = choices.reduce((sum, choice) => sum + choice.count, 0)
  return {
    id: question.id,
    url: urls.detail('questions', question.id),
    question: question.question,
    subtype: question.subtype,
    sample_size: picks,
    skipped: choices.reduce((sum, choice) => sum + choice.skipped, 0),
    direct: null,
    weighted: null,
    choices: choices.map((choice) => ({
      id: choice.id,
      text: choice.text,
      count: choice.count,
      percentage: picks === 0 ? null : (100 * choice.count) / picks,
    })),
  }
}

export const SURVEY_CSV_HEADER = [
  'question_id',
  'question',
  'subtype',
  'level',
  'choice_id',
  'choice_text',
  'count',
  'percentage',
  'margin',
  'weighted_percentage',
  'weighted_margin',
  'weighted_count',
  'suppressed',
] as const

type Row = [
  number,
  string,
  string,
  string | null,
  number | null,
  string | null,
  number,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
]

/** The rows of one question before suppression: one per level (likert) or choice. */
function rowsOf(result: SurveyResult): Row[] {
  const head = [result.id, result.question, result.subtype] as const
  if (result.choices !== null)
    return result.choices.map((choice) => [...head, null, choice.id, choice.text, choice.count, choice.percentage, null, null, null, null])
  return LEVEL_KEYS.map((key) => {
    const direct = result.direct!.shares[key]
    const weighted = result.weighted!.shares[key]
    return [
      ...head,
      key,
      null,
      null,
      direct.count,
      direct.percentage,
      direct.margin,
      weighted.weighted_percentage,
      weighted.weighted_margin,
      weighted.weighted_count,
    ]
  })
}

/**
 * The open-data table: one tidy row per (question, level or choice). A row whose count is below minCellSize has
 * its count, percentage, margin and weighted figures blank and `suppressed` true. When that leaves exactly one
 * row of a question suppressed, the smallest other row with answers is suppressed with it: the published shares
 * give the question's total, and the total less the published counts would otherwise be the small cell's count.
 */
export function surveyResultsCsv(results: SurveyResult[], minCellSize: number): string {
  const lines: (string | number | boolean | null)[][] = []
  for (const result of results) {
    const rows = rowsOf(result)
    const suppressed = rows.map((row) => row[6] < minCellSize)
    const small = suppressed.filter(Boolean).length
    if (small === 1) {
      let partner = -1
      rows.forEach((row, i) => {
        if (!suppressed[i] && (partner === -1 || row[6] < rows[partner][6])) partner = i
      })
      if (partner !== -1) suppressed[partner] = true
    }
    rows.forEach((row, i) => {
      if (suppressed[i]) lines.push([...row.slice(0, 6), null, null, null, null, null, null, true])
      else lines.push([...row, false])
    })
  }
  return csvDocument(SURVEY_CSV_HEADER, lines)
}
