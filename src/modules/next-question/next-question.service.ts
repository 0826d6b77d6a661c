import type { ViewContext } from '../../core/view-context.ts'
import { ValidationFailed, type FieldErrors } from '../../core/errors.ts'
import { parseIdList } from '../../core/integers.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { withFigures } from '../../disclosure/figures.ts'
import { toChoice } from '../questions/questions.mapper.ts'
import { questionOrderingWithFigures, type ChoiceRow } from '../questions/questions.repository.ts'
import type { QuestionListQuery } from '../questions/questions.schemas.ts'
import { loadWithChoices } from '../questions/published-figures.ts'
import { nextQuestionRepository, type LightRow, type Remember } from './next-question.repository.ts'
import type { LightQuestion, NextQuestionQuery, NextQuestionResult } from './next-question.schemas.ts'

const ON = new Set(['1', 'true', 't', 'yes', 'y', 'on'])
const OFF = new Set(['', '0', 'false', 'f', 'no', 'n', 'off'])
const FLAGS = ['order', 'return_unanswered_count', 'return_full_count'] as const

/** The switches as DRF's BooleanField reads them; anything else is a 400 on that field. */
function flags(query: NextQuestionQuery): Record<(typeof FLAGS)[number], boolean> {
  const errors: FieldErrors = {}
  const out = {} as Record<(typeof FLAGS)[number], boolean>
  for (const name of FLAGS) {
    const value = (query[name] ?? '').trim().toLowerCase()
    if (!ON.has(value) && !OFF.has(value)) errors[name] = ['Must be a valid boolean.']
    out[name] = ON.has(value)
  }
  if (Object.keys(errors).length) throw ValidationFailed(errors)
  return out
}

const FILTER_NAMES = [
  'search',
  'votes__user__username',
  'user__username',
  'user__id',
  'answered_by',
  'in_collections__parent',
  'group',
  'tags__tag',
  'id__in',
] as const

function questionFilters(query: NextQuestionQuery): QuestionListQuery {
  const out: Record<string, unknown> = {}
  for (const name of FILTER_NAMES) if (query[name] !== undefined) out[name] = query[name]
  return out as QuestionListQuery
}

function toLightQuestion(row: LightRow, choices: LightQuestion['choices']): LightQuestion {
  // Served questions are unanswered by definition, so the caller has no vote on them.
  return { ...row, my_vote: [], choices } as LightQuestion
}

/**
 * The next questions the caller has not answered (at most `maxLimit`), or only the counts when asked for them:
 * a collection walked in its order when `order` is on, else the listing's ordering (docs/next-question.md).
 */
export async function nextQuestions(
  context: ViewContext,
  remember: Remember,
  query: NextQuestionQuery,
  maxLimit: number,
): Promise<NextQuestionResult> {
  const { order, return_unanswered_count, return_full_count } = flags(query)
  const filters = { questionFilters: questionFilters(query), exclude: parseIdList(query['id__in!'] ?? '') }
  const repository = nextQuestionRepository(context.db, remember)
  const caller = context.caller
  if (return_unanswered_count || return_full_count) {
    return { returning: 0, results: [], ...(await repository.counts(filters, caller)) }
  }
  const limit = Math.min(query.limit_count ?? 1, maxLimit)
  const collection = order && query.in_collections__parent !== undefined ? query.in_collections__parent : null
  const ordering =
    collection === null
      ? orderingTerms(query.ordering, questionOrderingWithFigures(context.minCellSize), ['id'], column('questions.id'))
      : []
  const [counts, rows] = await repository.countsAndNext(filters, caller, ordering, limit, collection)
  // The choices with the figures everyone sees (src/disclosure/figures.ts), in one statement.
  const { figures, choices } = await loadWithChoices(
    context.db,
    rows.map((row) => row.id),
    context.minCellSize,
  )
  const results = rows.map((row) =>
    toLightQuestion(
      withFigures(row, figures.question(row.id)),
      choices.filter((choice) => choice.question_id === row.id).map((choice) => toChoice(choice as unknown as ChoiceRow, context.urls)),
    ),
  )
  return { returning: results.length, results, count: counts.count, unanswered: counts.unanswered }
}
