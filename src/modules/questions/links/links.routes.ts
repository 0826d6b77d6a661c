import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { fieldError, NotFound } from '../../../core/errors.ts'
import { listRoute } from '../../../http/list-route.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { readErrors } from '../../../http/schemas.ts'
import { authoredQuestion } from '../../../access/question-access.ts'
import { isWebLink } from '../question-rules.ts'
import { questionWriteErrors } from '../question-writes.schemas.ts'
import { linksRepository, toLinkItem } from './links.repository.ts'
import { LinkCreateBody, LinkListQuery, LinkPutBody, LinkUpdateBody, QuestionLinkItem } from './links.schemas.ts'
import { IdParams, NoContent } from '../../../http/route-schemas.ts'
import { urlsFor } from '../../../http/urls.ts'

function webLink(text: string): string {
  const link = text.trim()
  if (!isWebLink(link)) throw fieldError('link', 'Enter a valid URL.')
  return link
}

/** question_links: further reading attached to a question by its author. */
export function linkRoutes(app: App): void {
  const repository = () => linksRepository(app.db)
  const owner = (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? Promise.resolve(undefined) : repository().owner(id, request.caller)
  }

  listRoute(app, '/api/question_links/', {
    summary: 'Links of questions',
    querystring: LinkListQuery,
    item: QuestionLinkItem,
    config: {
      access: 'anyone',
      resource: {
        name: 'Question Link List',
        description: 'Further reading attached to questions, with the votes on how useful each link is.',
      },
    },
    rows: (request, list) => repository().page(request.query, request.caller, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toLinkItem(row, urls))
    },
  })

  app.post('/api/question_links/', {
    schema: {
      summary: 'Add a link to one of your questions: 201 with the link',
      body: LinkCreateBody,
      response: { 201: QuestionLinkItem, ...questionWriteErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const caller = signedIn(request)
      const link = webLink(request.body.link)
      await authoredQuestion(app.db, caller, request.body.question)
      const row = await repository().insert({
        question_id: request.body.question,
        user_id: caller.id,
        link,
        title: (request.body.title ?? '').trim(),
      })
      const item = toLinkItem(row, urlsFor(request))
      return reply.code(201).header('location', item.url).send(item)
    },
  })

  app.get('/api/question_links/:id/', {
    schema: { summary: 'One link of a question', params: IdParams, response: { 200: QuestionLinkItem, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Question Link Instance', description: 'One link of a question.' } },
    handler: async (request) => {
      const row = await repository().find(request.params.id, request.caller)
      if (!row) throw NotFound()
      return toLinkItem(row, urlsFor(request))
    },
  })

  for (const [method, body] of [
    ['PATCH', LinkUpdateBody],
    ['PUT', LinkPutBody],
  ] as const) {
    app.route({
      method,
      url: '/api/question_links/:id/',
      schema: {
        summary: 'Change a link of your question',
        params: IdParams,
        body,
        response: { 200: QuestionLinkItem, ...questionWriteErrors },
      },
      config: { access: 'owner', owner },
      handler: async (request: FastifyRequest<{ Params: { id: number }; Body: LinkUpdateBody }>) => {
        const values: { link?: string; title?: string } = {}
        if (request.body.link !== undefined) values.link = webLink(request.body.link)
        if (request.body.title !== undefined) values.title = (request.body.title ?? '').trim()
        const row = await repository().update(request.params.id, values)
        if (!row) throw NotFound()
        return toLinkItem(row, urlsFor(request))
      },
    })
  }

  app.delete('/api/question_links/:id/', {
    schema: {
      summary: 'Remove a link from your question (its votes go with it)',
      params: IdParams,
      response: { 204: NoContent, ...questionWriteErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await repository().remove(request.params.id)
      return reply.code(204).send(null)
    },
  })
}
