import type { UrlBuilder } from '../../core/urls.ts'
import { csvDocument } from '../demographics/demographics.mapper.ts'
import { LEVEL_KEYS } from '../../engines/statistics/weighting.ts'
import type { WeightedQuestionResult } from '../../engines/statistics/weighting-design.ts'
import type { ChoiceCountRow, SurveyQuestionRow } from './survey-results.repository.ts'
import type { SurveyResult } from './survey-results.schemas.ts'

export { CSV_TYPE } from '../demographics/demographics.mapper.ts'

/** A question's result, and its choices (all of them, the withheld ones too) for the open-data table. */
export interface SurveyOutcome {
  result: SurveyResult
  choices: { id: number; text: string }[] | null
}

/** The published levels only (published[i] for level i + 1): a withheld level is left out. */
const levels = <T>(published: boolean[], value: (key: (typeof LEVEL_KEYS)[number]) => T) =>
  Object.fromEntries(LEVEL_KEYS.flatMap((key, i) => (published[i] ? [[key, value(key)]] : []))) as Partial<
    Record<(typeof LEVEL_KEYS)[number], T>
  >

/**
 * A likert question: the fields of weightedQuestionResult, split into the direct and the weighted figures; the
 * shares of the levels publishedCells withholds are left out of both.
 */
export function toLikertResult(
  question: SurveyQuestionRow,
  result: WeightedQuestionResult,
  published: boolean[],
  urls: UrlBuilder,
): SurveyResult {
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
      shares: levels(published, (key) => ({
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
      shares: levels(published, (key) => ({
        weighted_percentage: result.shares[key].weighted_percentage,
        weighted_margin: result.shares[key].weighted_margin,
        weighted_count: result.shares[key].weighted_count,
      })),
    },
    choices: null,
  }
}

/** A multiple-choice question: each published choice's picks and share of the picks (skips counted apart); not weighted. */
export function toChoiceResult(
  question: SurveyQuestionRow,
  choices: ChoiceCountRow[],
  published: boolean[],
  urls: UrlBuilder,
): SurveyResult {
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
    choices: choices.flatMap((choice, i) =>
      published[i] ? [{ id: choice.id, text: choice.text, count: choice.count, percentage: (100 * choice.count) / picks }] : [],
    ),
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

/** count, percentage, margin, weighted_percentage, weighted_margin, weighted_count */
type Row = [number, number | null, number | null, number | null, number | null, number | null]

/** The rows of one question, one per level (likert) or choice; those the JSON leaves out are null. */
function rowsOf(outcome: SurveyOutcome): { head: (string | number | null)[]; row: Row | null }[] {
  const { result } = outcome
  const head = [result.id, result.question, result.subtype] as const
  if (result.choices !== null) {
    const shown = new Map(result.choices.map((choice) => [choice.id, choice]))
    return (outcome.choices ?? []).map((choice) => {
      const published = shown.get(choice.id)
      return {
        head: [...head, null, choice.id, choice.text],
        row: published ? [published.count, published.percentage, null, null, null, null] : null,
      }
    })
  }
  return LEVEL_KEYS.map((key) => {
    const direct = result.direct!.shares[key]
    const weighted = result.weighted!.shares[key]
    return {
      head: [...head, key, null, null],
      row:
        direct && weighted
          ? [
              direct.count,
              direct.percentage,
              direct.margin,
              weighted.weighted_percentage,
              weighted.weighted_margin,
              weighted.weighted_count,
            ]
          : null,
    }
  })
}

/**
 * The open-data table: one tidy row per (question, level or choice), the same figures as the JSON. A level or
 * choice the JSON leaves out (fewer than MIN_CELL_SIZE answers, or withheld with them) is a row whose figures are
 * blank and `suppressed` true.
 */
export function surveyResultsCsv(outcomes: SurveyOutcome[]): string {
  const lines: (string | number | boolean | null)[][] = []
  for (const outcome of outcomes)
    for (const { head, row } of rowsOf(outcome))
      lines.push(row ? [...head, ...row, false] : [...head, null, null, null, null, null, null, true])
  return csvDocument(SURVEY_CSV_HEADER, lines)
}
