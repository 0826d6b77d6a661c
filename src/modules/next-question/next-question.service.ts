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
import { walkPosition, type WalkShape } from './kept-walks.ts'
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

/** Filters whose questions depend on neither the caller nor anyone's answers: their walks can be kept. */
const KEPT_FILTERS: ReadonlySet<string> = new Set(['in_collections__parent', 'group', 'tags__tag', 'id__in'])

/** Values kept until the data changes: `remember` exactly, `recent` within the grace while one request rebuilds. */
export interface NextQuestionCache {
  remember: Remember
  recent: Remember
}

/** The questions in the light form, in the order of `rows`, with the figures everyone sees: one statement. */
async function lightQuestions(context: ViewContext, rows: LightRow[]): Promise<LightQuestion[]> {
  // The choices with the figures everyone sees (src/disclosure/figures.ts).
  const { figures, choices } = await loadWithChoices(
    context.db,
    rows.map((row) => row.id),
    context.minCellSize,
  )
  // Served questions are unanswered by definition, so the caller has no vote on them.
  return rows.map(
    (row) =>
      ({
        ...withFigures(row, figures.question(row.id)),
        my_vote: [],
        choices: choices
          .filter((choice) => choice.question_id === row.id)
          .map((choice) => toChoice(choice as unknown as ChoiceRow, context.urls)),
      }) as LightQuestion,
  )
}

/** The walk a query asks for, when it can be kept: kept filters only, in id order or a collection's order. */
function keptShape(query: NextQuestionQuery, collection: number | null, idOrder: boolean): WalkShape | null {
  if (FILTER_NAMES.some((name) => query[name] !== undefined && !KEPT_FILTERS.has(name))) return null
  if (collection === null && !idOrder) return null
  return { filters: questionFilters(query), collectionOrder: collection }
}

/**
 * The next questions the caller has not answered (at most `maxLimit`), or only the counts when asked for them:
 * a collection walked in its order when `order` is on, else the listing's ordering (docs/next-question.md).
 */
export async function nextQuestions(
  context: ViewContext,
  cache: NextQuestionCache,
  query: NextQuestionQuery,
  maxLimit: number,
): Promise<NextQuestionResult> {
  const { order, return_unanswered_count, return_full_count } = flags(query)
  const filters = { questionFilters: questionFilters(query), exclude: parseIdList(query['id__in!'] ?? '') }
  const repository = nextQuestionRepository(context.db, cache.remember)
  const caller = context.caller
  const countsOnly = return_unanswered_count || return_full_count
  const limit = countsOnly ? 0 : Math.min(query.limit_count ?? 1, maxLimit)
  const collection = order && query.in_collections__parent !== undefined ? query.in_collections__parent : null
  const ordering =
    collection === null
      ? orderingTerms(query.ordering, questionOrderingWithFigures(context.minCellSize), ['id'], column('questions.id'))
      : []
  const shape = keptShape(query, collection, repository.inIdOrder(ordering))
  if (shape) {
    const walk = await walkPosition(context.db, repository, shape, caller?.id ?? null, filters.exclude, limit)
    const results = walk.next.length === 0 ? [] : await keptLightQuestions(context, cache, repository, walk.next)
    return { returning: results.length, results, count: walk.count, unanswered: walk.unanswered }
  }
  if (countsOnly) return { returning: 0, results: [], ...(await repository.counts(filters, caller)) }
  const [counts, rows] = await repository.countsAndNext(filters, caller, ordering, limit, collection)
  const results = await lightQuestions(context, rows)
  return { returning: results.length, results, count: counts.count, unanswered: counts.unanswered }
}

/**
 * The light questions of a page, kept for everyone who walks to it (under a burst of answers, its figures may be
 * up to the response cache's grace old while one request reads them again). A question removed meanwhile is left out.
 */
async function keptLightQuestions(
  context: ViewContext,
  cache: NextQuestionCache,
  repository: ReturnType<typeof nextQuestionRepository>,
  ids: number[],
): Promise<LightQuestion[]> {
  return cache.recent(`next-light:${context.urls.base}:${context.minCellSize}:${ids.join(',')}`, async () => {
    const byId = new Map((await repository.lightRows(ids)).map((row) => [row.id, row]))
    return lightQuestions(
      context,
      ids.flatMap((id) => byId.get(id) ?? []),
    )
  })
}
