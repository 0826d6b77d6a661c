import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { viewerOf } from '../../core/caller.ts'
import {
  toVoteComment,
  VOTE_COMMENT_COLUMNS,
  VOTE_COMMENT_ORDERING,
  voteCommentsRepository,
  type VoteCommentRow,
} from './vote-comments.repository.ts'
import { VoteComment, VoteCommentBody, VoteCommentListQuery, type VoteCommentListQuery as ReasonFilters } from './vote-comments.schemas.ts'
import { giveReason } from './vote-comments.service.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { drfBody } from '../../http/drf-body.ts'
import { urlsFor } from '../../http/urls.ts'

/** vote_comments: comments people give as the reasons of their answers. */
export function voteCommentRoutes(app: App): void {
  const repository = () => voteCommentsRepository(app.db)

  app.get('/api/vote_comments/', {
    schema: {
      summary: 'Comments given as reasons of answers',
      querystring: VoteCommentListQuery,
      response: { 200: Page(VoteComment), ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Vote Comment List', description: 'Comments people give as the reasons of their answers.' },
    },
    handler: async (request) => {
      const filters = request.query as ReasonFilters
      const ordering = orderingTerms(filters.ordering, VOTE_COMMENT_ORDERING, ['id'], column('vote_comments.id'))
      const filtered = repository().filtered(filters, viewerOf(request.caller))
      const result = await pageOfRows<VoteCommentRow>(request, filtered, (q) => q.select(VOTE_COMMENT_COLUMNS as never), ordering)
      const urls = urlsFor(request)
      return listing(request, result, (rows) => rows.map((row) => toVoteComment(row, urls)))
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
