import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { readErrors } from '../../http/schemas.ts'
import { viewerOf } from '../../core/caller.ts'
import { toVoteComment, voteCommentsRepository } from './vote-comments.repository.ts'
import { VoteComment, VoteCommentBody, VoteCommentListQuery } from './vote-comments.schemas.ts'
import { giveReason } from './vote-comments.service.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { drfBody } from '../../http/drf-body.ts'
import { urlsFor } from '../../http/urls.ts'

/** vote_comments: comments people give as the reasons of their answers. */
export function voteCommentRoutes(app: App): void {
  const repository = () => voteCommentsRepository(app.db)

  listRoute(app, '/api/vote_comments/', {
    summary: 'Comments given as reasons of answers',
    querystring: VoteCommentListQuery,
    item: VoteComment,
    config: {
      access: 'anyone',
      resource: { name: 'Vote Comment List', description: 'Comments people give as the reasons of their answers.' },
    },
    rows: (request, list) => repository().page(request.query, viewerOf(request.caller), list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toVoteComment(row, urls))
    },
  })

  app.post('/api/vote_comments/', {
    schema: {
      summary: 'Give a comment as the reason of your answer to its question',
      body: VoteCommentBody,
      response: { 201: VoteComment, ...writeErrors },
    },
    config: { access: 'signed-in' },
    preValidation: drfBody(),
    handler: async (request, reply) => {
      const id = await giveReason(app.db, signedIn(request), request.body)
      const row = await repository().findVisible(id, viewerOf(request.caller))
      if (!row) throw NotFound()
      const answer = toVoteComment(row, urlsFor(request))
      return reply.code(201).header('location', answer.url).send(answer)
    },
  })

  app.get('/api/vote_comments/:id/', {
    schema: { summary: 'One reason of an answer', params: IdParams, response: { 200: VoteComment, ...readErrors } },
    config: {
      access: 'anyone',
      resource: {
        name: 'Vote Comment Instance',
        description: 'A comment given as the reason of an answer; whoever answered may remove it.',
      },
    },
    handler: async (request) => {
      const row = await repository().findVisible(request.params.id, viewerOf(request.caller))
      if (!row) throw NotFound()
      return toVoteComment(row, urlsFor(request))
    },
  })

  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : repository().ownerOf(id, viewerOf(request.caller))
  }
  app.delete('/api/vote_comments/:id/', {
    schema: { summary: 'Remove a reason from your answer', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await repository().remove(request.params.id)
      return reply.code(204).send(null)
    },
  })
}
