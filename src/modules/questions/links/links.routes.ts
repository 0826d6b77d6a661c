import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { fieldError, NotFound } from '../../../core/errors.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { authoredQuestion } from '../../../access/question-access.ts'
import { isWebLink } from '../question-rules.ts'
import { questionWriteErrors } from '../question-writes.schemas.ts'
import { attachmentReads, attachmentRemoval } from '../question-attachments.routes.ts'
import { linksRepository, toLinkItem } from './links.repository.ts'
import { LinkCreateBody, LinkListQuery, LinkPutBody, LinkUpdateBody, QuestionLinkItem } from './links.schemas.ts'
import { IdParams } from '../../../http/route-schemas.ts'
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

  const links = {
    path: '/api/question_links/',
    querystring: LinkListQuery,
    item: QuestionLinkItem,
    list: {
      summary: 'Links of questions',
      resource: {
        name: 'Question Link List',
        description: 'Further reading attached to questions, with the votes on how useful each link is.',
      },
    },
    instance: {
      summary: 'One link of a question',
      resource: { name: 'Question Link Instance', description: 'One link of a question.' },
    },
    removal: { summary: 'Remove a link from your question (its votes go with it)', owner },
    repository,
    toItem: toLinkItem,
  }
  attachmentReads(app, links)

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

  attachmentRemoval(app, links)
}
