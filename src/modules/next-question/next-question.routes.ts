import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { ValidationFailed, type FieldErrors } from '../../core/errors.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { readErrors } from '../../http/schemas.ts'
import { toChoice } from '../questions/questions.mapper.ts'
import { questionOrderingWithFigures, type ChoiceRow } from '../questions/questions.repository.ts'
import type { QuestionListQuery } from '../questions/questions.schemas.ts'
import { parseIdList } from '../../core/integers.ts'
import { nextQuestionRepository, type LightRow } from './next-question.repository.ts'
import { withFigures } from '../../disclosure/figures.ts'
import { loadWithChoices } from '../questions/published-figures.ts'
import {
  ClampedQuery,
  LightQuery,
  MAX_LIMIT_COUNT,
  MAX_LONG_WALK,
  NextQuestionResult,
  type LightQuestion,
  type NextQuestionQuery,
} from './next-question.schemas.ts'
import { urlsFor } from '../../http/urls.ts'

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

export function nextQuestionRoutes(app: App): void {
  /** The same handler on both paths; only the most questions one answer carries differs. */
  const handler =
    (maxLimit: number) =>
    async (request: FastifyRequest): Promise<NextQuestionResult> => {
      const query = request.query as NextQuestionQuery
      const { order, return_unanswered_count, return_full_count } = flags(query)
      const filters = { questionFilters: questionFilters(query), exclude: parseIdList(query['id__in!'] ?? '') }
      const repository = nextQuestionRepository(app.db, (key, build) => app.responseCache.remember(key, build))
      const caller = request.caller
      if (return_unanswered_count || return_full_count) {
        return { returning: 0, results: [], ...(await repository.counts(filters, caller)) }
      }
      const limit = Math.min(query.limit_count ?? 1, maxLimit)
      const collection = order && query.in_collections__parent !== undefined ? query.in_collections__parent : null
      const ordering =
        collection === null
          ? orderingTerms(query.ordering, questionOrderingWithFigures(app.config.minCellSize), ['id'], column('questions.id'))
          : []
      const [counts, rows] = await repository.countsAndNext(filters, caller, ordering, limit, collection)
      const urls = urlsFor(request)
      // The choices with the figures everyone sees (src/disclosure/figures.ts), in one statement.
      const { figures, choices } = await loadWithChoices(
        app.db,
        rows.map((row) => row.id),
        app.config.minCellSize,
      )
      const results = rows.map((row) =>
        toLightQuestion(
          withFigures(row, figures.question(row.id)),
          choices.filter((choice) => choice.question_id === row.id).map((choice) => toChoice(choice as unknown as ChoiceRow, urls)),
        ),
      )
      return { returning: results.length, results, count: counts.count, unanswered: counts.unanswered }
    }

  const description =
    'The next questions the caller has not answered, with how many match the query and how many remain. ' +
    'Anonymous callers have answered nothing. See docs/next-question.md.'
  app.get('/api/next_question_light/', {
    schema: {
      summary: 'Next unanswered questions',
      description,
      querystring: LightQuery,
      response: { 200: NextQuestionResult, ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Next Question Light', description: 'The next questions the caller has not answered yet.' },
    },
    handler: handler(MAX_LIMIT_COUNT),
  })
  // The clients' path: they send limit_count=100 and walk a collection, topic or profile in one call, so up to 100
  // are served; more is served as 100 rather than refused.
  app.get('/api/next_question/', {
    schema: {
      summary: 'Next unanswered questions (up to 100; limit_count above 100 served as 100)',
      description,
      querystring: ClampedQuery,
      response: { 200: NextQuestionResult, ...readErrors },
    },
    config: { access: 'anyone', resource: { name: 'Next Question', description: 'The next questions the caller has not answered yet.' } },
    handler: handler(MAX_LONG_WALK),
  })
}
