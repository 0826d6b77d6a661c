import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import {
  answeredAt,
  collectionOrder,
  questionOrdering,
  QUESTION_COLUMNS,
  questionsRepository,
  switchedOn,
  type QuestionRow,
} from './questions.repository.ts'
import { Question, QuestionListQuery, type QuestionListQuery as QuestionFilters } from './questions.schemas.ts'
import { loadQuestion, questionsFromRows } from './questions.service.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { envelope } from '../../http/pagination.ts'
import { plainJson } from '../../http/response-cache.ts'
import { QUESTION_STAMP, sendJson, signedInQuestionsJson, type QuestionStamp } from './question-pieces.ts'
import { viewContextOf } from '../../http/view-context.ts'

export function questionRoutes(app: App): void {
  app.get('/api/questions/', {
    schema: {
      summary: 'Questions in their full form',
      description: 'Paginated questions with filters of spec 4.2. With `count`, the answer is `{"count": N}` instead of a page.',
      querystring: QuestionListQuery,
      response: { 200: Page(Question), ...readErrors },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Question List', description: 'Questions people answer, with their statistics.' },
    },
    handler: async (request, reply) => {
      const filters = request.query as QuestionFilters
      const repository = questionsRepository(app.db)
      const filtered = repository.filtered(filters, request.caller)
      if (filters.count !== undefined && filters.count !== '') {
        const { count } = await filtered.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()
        return reply.serializer(JSON.stringify).send({ count: Number(count) } as never)
      }
      // A history reads newest answer first; `answered_at` sorts any listing by the caller's answer times.
      const history = switchedOn(filters.my_history) && request.caller !== null
      const callerId = request.caller?.id
      // A collection's questions come in the collection's order (`order`) unless ordering says otherwise.
      const inCollection = filters.in_collections__parent
      const fallback = history ? '-answered_at' : inCollection !== undefined ? 'order' : '-created_at'
      const ordering = orderingTerms(
        filters.ordering,
        questionOrdering(filters, request.caller, app.config.minCellSize),
        [fallback],
        column('questions.id'),
        (name) =>
          name === 'answered_at' && callerId !== undefined
            ? answeredAt(callerId)
            : name === 'order' && inCollection !== undefined
              ? collectionOrder(inCollection)
              : null,
      )
      const their = async () =>
        filters.answered_by ?? (filters.votes__user__username ? await repository.userIdByUsername(filters.votes__user__username) : null)
      if (request.caller && app.responseCache.enabled && plainJson(request)) {
        // Signed in: the kept JSON of each question with the caller's own fields put in (question-pieces.ts).
        const result = await pageOfRows<QuestionStamp>(request, filtered, (q) => q.select(QUESTION_STAMP) as never, ordering)
        const page = envelope(request, result.page, result.count, [])
        const items = await signedInQuestionsJson(app, request, reply, request.caller.id, result.rows, await their())
        return sendJson(reply, `${JSON.stringify(page).slice(0, -3)}[${items.join(',')}]}`)
      }
      const result = await pageOfRows<QuestionRow>(request, filtered, (q) => q.select(QUESTION_COLUMNS) as never, ordering)
      const theirUserId = await their()
      return listing(request, result, (rows) => questionsFromRows(viewContextOf(app, request), rows, { theirUserId }))
    },
  })

  app.get('/api/questions/:id/', {
    schema: { summary: 'One question in its full form', params: IdParams, response: { 200: Question, ...readErrors } },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Question Instance', description: 'One question with its statistics.' },
    },
    handler: async (request, reply) => {
      if (request.caller && app.responseCache.enabled && plainJson(request)) {
        const stamps = (await questionsRepository(app.db)
          .filtered({ id: request.params.id }, request.caller)
          .select(QUESTION_STAMP)
          .execute()) as QuestionStamp[]
        const [json] = await signedInQuestionsJson(app, request, reply, request.caller.id, stamps, null)
        if (json === undefined) throw NotFound()
        return sendJson(reply, json)
      }
      const question = await loadQuestion(viewContextOf(app, request), request.caller, request.params.id)
      if (!question) throw NotFound()
      return question
    },
  })
}
