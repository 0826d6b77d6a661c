import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { envelope, listRequestOf } from '../../http/pagination.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { questionsRepository } from './questions.repository.ts'
import { Question, QuestionListQuery } from './questions.schemas.ts'
import { loadQuestion, questionsFromRows } from './questions.service.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { plainJson } from '../../http/response-cache.ts'
import { signedInQuestionsJson, type QuestionPieces } from './question-pieces.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** JSON already serialized, sent as it is. */
function sendJson(reply: FastifyReply, json: string): FastifyReply {
  return reply.header('content-type', 'application/json; charset=utf-8').send(json)
}

export function questionRoutes(app: App): void {
  const k = app.config.minCellSize
  /** Whether the answer is built from each question's kept JSON: a signed-in caller asking for plain JSON. */
  const fromPieces = (request: FastifyRequest) => request.caller !== null && app.responseCache.enabled && plainJson(request)
  const piecesOf = (request: FastifyRequest, reply: FastifyReply): QuestionPieces => ({
    anonymous: { ...viewContextOf(app, request), caller: null },
    cache: app.responseCache,
    origin: `${request.protocol}://${request.host}`,
    // Fastify's serializer for the schema, compiled once per route and schema.
    serializer: (schema) => reply.compileSerializationSchema(schema as Record<string, unknown>) as (value: unknown) => string,
  })

  // Not a listRoute: `count` answers `{"count": N}`, and signed-in pages are put together from kept JSON.
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
      const filters = request.query
      const caller = request.caller
      const repository = questionsRepository(app.db)
      if (filters.count !== undefined && filters.count !== '') {
        return sendJson(reply, JSON.stringify({ count: await repository.count(filters, caller) }))
      }
      const their = async () =>
        filters.answered_by ?? (filters.votes__user__username ? await repository.userIdByUsername(filters.votes__user__username) : null)
      const list = listRequestOf(request)
      if (caller && fromPieces(request)) {
        const result = await repository.stampPage(filters, caller, list, k)
        const page = envelope(request, result.page, result.count, [])
        const items = await signedInQuestionsJson(piecesOf(request, reply), caller.id, result.rows, await their())
        return sendJson(reply, `${JSON.stringify(page).slice(0, -3)}[${items.join(',')}]}`)
      }
      const result = await repository.page(filters, caller, list, k)
      const theirUserId = await their()
      const items = await questionsFromRows(viewContextOf(app, request), result.rows, { theirUserId })
      return envelope(request, result.page, result.count, items)
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
      if (request.caller && fromPieces(request)) {
        const stamp = await questionsRepository(app.db).findStamp(request.params.id, request.caller)
        const [json] = await signedInQuestionsJson(piecesOf(request, reply), request.caller.id, stamp ? [stamp] : [], null)
        if (json === undefined) throw NotFound()
        return sendJson(reply, json)
      }
      const question = await loadQuestion(viewContextOf(app, request), request.caller, request.params.id)
      if (!question) throw NotFound()
      return question
    },
  })
}
