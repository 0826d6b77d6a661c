import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { NotFound } from '../../../core/errors.ts'
import { listRoute } from '../../../http/list-route.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { readErrors } from '../../../http/schemas.ts'
import { questionWriteErrors } from '../question-writes.schemas.ts'
import { questionTagsRepository, toQuestionTagItem } from './question-tags.repository.ts'
import { QuestionTagCreateBody, QuestionTagItem, QuestionTagListQuery } from './question-tags.schemas.ts'
import { addQuestionTag, publishedQuestionTags, removeQuestionTag } from './question-tags.service.ts'
import { IdParams, NoContent } from '../../../http/route-schemas.ts'
import { urlsFor } from '../../../http/urls.ts'

/** question_tags: the tags of questions, added and removed by the question's author (or staff). */
export function questionTagRoutes(app: App): void {
  const repository = () => questionTagsRepository(app.db)
  const k = app.config.minCellSize
  const owner = (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? Promise.resolve(undefined) : repository().owner(id, request.caller)
  }

  listRoute(app, '/api/question_tags/', {
    summary: 'Tags of questions',
    querystring: QuestionTagListQuery,
    item: QuestionTagItem,
    config: {
      access: 'anyone',
      resource: {
        name: 'Question Tag List',
        description: 'The tags questions carry, the topic first, with the votes on how well each fits.',
      },
    },
    rows: (request, list) => repository().page(request.query, request.caller, list, k),
    items: async (rows, request) => (await publishedQuestionTags(app.db, rows, k)).map((row) => toQuestionTagItem(row, urlsFor(request))),
  })

  app.post('/api/question_tags/', {
    schema: {
      summary: 'Tag one of your questions: 201 with the question-tag',
      body: QuestionTagCreateBody,
      response: { 201: QuestionTagItem, ...questionWriteErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const id = await addQuestionTag(app.db, signedIn(request), request.body.question, request.body.tag)
      const [row] = await publishedQuestionTags(app.db, [(await repository().find(id, request.caller))!], k)
      const item = toQuestionTagItem(row, urlsFor(request))
      return reply.code(201).header('location', item.url).send(item)
    },
  })

  app.get('/api/question_tags/:id/', {
    schema: { summary: 'One tag of a question', params: IdParams, response: { 200: QuestionTagItem, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Question Tag Instance', description: 'One tag of a question.' } },
    handler: async (request) => {
      const row = await repository().find(request.params.id, request.caller)
      if (!row) throw NotFound()
      const [shown] = await publishedQuestionTags(app.db, [row], k)
      return toQuestionTagItem(shown, urlsFor(request))
    },
  })

  app.delete('/api/question_tags/:id/', {
    schema: {
      summary: 'Untag your question; removing the topic makes the next tag the topic',
      params: IdParams,
      response: { 204: NoContent, ...questionWriteErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await removeQuestionTag(app.db, signedIn(request), request.params.id)
      return reply.code(204).send(null)
    },
  })
}
