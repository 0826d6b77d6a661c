import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { envelope, listRequestOf } from '../../http/pagination.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { questionsRepository } from './questions.repository.ts'
import { switchedOn } from './question-filters.ts'
import { Question, QuestionListQuery } from './questions.schemas.ts'
import { loadQuestion, questionsFromRows } from './questions.service.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { cacheKeyOf, plainJson } from '../../http/response-cache.ts'
import { keptLayout, keptQuestions, layoutSize, withOwnFields, type KeptLayout, type QuestionPieces } from './question-pieces.ts'
import { viewContextOf } from '../../http/view-context.ts'
import type { OwnRecord } from '../../access/own-records.ts'

/** JSON already serialized, sent as it is. */
function sendJson(reply: FastifyReply, json: string | Buffer): FastifyReply {
  return reply.header('content-type', 'application/json; charset=utf-8').send(json)
}

/** Orderings by when people answered count the caller's own private answers: the caller's page is their own. */
const ORDERED_BY_ANSWERS = /(^|,)\s*-?\s*(votes__created_at|answered_at)\s*(,|$)/

/** Filters under which a page is the same for the caller as for anyone (given no drafts of theirs, and no staff). */
function sameForAnyone(filters: QuestionListQuery, callerId: number): boolean {
  return (
    !switchedOn(filters.nearby) &&
    !switchedOn(filters.my_history) &&
    filters.answered_by !== callerId &&
    !ORDERED_BY_ANSWERS.test(filters.ordering ?? '')
  )
}

/** A page as anyone sees it, kept until the data changes, laid out for a caller's own fields. */
interface KeptPage {
  theirUserId: number | null
  layout: KeptLayout
}

export function questionRoutes(app: App): void {
  const k = app.config.minCellSize
  const piecesOf = (request: FastifyRequest, reply: FastifyReply): QuestionPieces => ({
    anonymous: { ...viewContextOf(app, request), caller: null },
    cache: app.responseCache,
    origin: `${request.protocol}://${request.host}`,
    // Fastify's serializer for the schema, compiled once per route and schema.
    serializer: (schema) => reply.compileSerializationSchema(schema as Record<string, unknown>) as (value: unknown) => string,
  })

  /**
   * The caller's kept record when their answer can be the kept anonymous one with their own fields put in: a
   * signed-in participant (not staff, who see everyone's full counters) with no drafts, asking for plain JSON.
   */
  async function ownRecordFor(request: FastifyRequest): Promise<OwnRecord | null> {
    const caller = request.caller
    if (!caller || caller.isStaff || !app.responseCache.enabled || !plainJson(request)) return null
    const record = await app.ownRecords.of(caller.id)
    return record && record.drafts === 0 ? record : null
  }

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
      const own = caller && sameForAnyone(filters, caller.id) ? await ownRecordFor(request) : null
      if (caller && own) {
        const pieces = piecesOf(request, reply)
        const page = await app.responseCache.rememberSince<KeptPage>(
          `questions:${cacheKeyOf(request)}`,
          own.generation,
          async () => {
            const result = await repository.stampPage(filters, null, list, k)
            const theirUserId = await their()
            const head = `${JSON.stringify(envelope(request, result.page, result.count, [])).slice(0, -3)}[`
            return { theirUserId, layout: keptLayout(await keptQuestions(pieces, result.rows, theirUserId), head, ']}') }
          },
          (page) => layoutSize(page.layout),
        )
        if (page.theirUserId !== caller.id && page.layout.questions.every((question) => question.authorId !== caller.id)) {
          return sendJson(reply, withOwnFields(page.layout, own, pieces.serializer))
        }
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
      const caller = request.caller
      const own = await ownRecordFor(request)
      if (caller && own) {
        const pieces = piecesOf(request, reply)
        const kept = await app.responseCache.rememberSince(
          `question:${cacheKeyOf(request)}`,
          own.generation,
          async () => {
            const stamp = await questionsRepository(app.db).findStamp(request.params.id, null)
            const questions = stamp ? await keptQuestions(pieces, [stamp], null) : []
            return questions.length === 0 ? null : keptLayout(questions, '', '')
          },
          layoutSize,
        )
        // Not there for anyone, and the caller has no drafts: not there for them either.
        if (kept === null) throw NotFound()
        if (kept.questions[0]!.authorId !== caller.id) return sendJson(reply, withOwnFields(kept, own, pieces.serializer))
      }
      const question = await loadQuestion(viewContextOf(app, request), caller, request.params.id)
      if (!question) throw NotFound()
      return question
    },
  })
}
