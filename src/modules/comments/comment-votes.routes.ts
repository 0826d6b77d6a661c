import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { NotFound } from '../../core/errors.ts'
import { readErrors } from '../../http/schemas.ts'
import { loadFullUsers } from '../users/users.service.ts'
import { commentVotesRepository } from './comment-votes.repository.ts'
import { CommentVote, CommentVoteBody, CommentVoteCast, CommentVoteListQuery, DOWN, UP } from './comment-votes.schemas.ts'
import { castCommentVote, commentVotesFromRows, toCommentVote, withdrawCommentVote } from './comment-votes.service.ts'
import { viewerOf } from '../../core/caller.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { drfBody } from '../../http/drf-body.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** comment_votes (spec 2.10): up and down votes on comments, with superseded votes kept inactive. */
export function commentVoteRoutes(app: App): void {
  const repository = () => commentVotesRepository(app.db)

  listRoute(app, '/api/comment_votes/', {
    summary: 'Votes on comments',
    querystring: CommentVoteListQuery,
    item: CommentVote,
    config: {
      access: 'anyone',
      resource: {
        name: 'Comment Vote List',
        description: 'Up (5) and down (1) votes on comments; superseded votes stay with active false.',
      },
    },
    rows: (request, list) => repository().page(request.query, viewerOf(request.caller), list),
    items: (rows, request) => commentVotesFromRows(viewContextOf(app, request), rows),
  })

  app.post('/api/comment_votes/', {
    schema: {
      summary: "Vote on a comment: 201 with the vote and the comment's new tallies; the same vote again answers 200",
      body: CommentVoteBody,
      response: { 200: CommentVoteCast, 201: CommentVoteCast, ...writeErrors },
    },
    config: { access: 'signed-in' },
    preValidation: drfBody({ choices: { value: [UP, DOWN] } }),
    handler: async (request, reply) => {
      const { vote, created, tallies } = await castCommentVote(app.db, signedIn(request), request.body)
      const context = viewContextOf(app, request)
      const users = await loadFullUsers(context, [vote.user_id])
      const answer = { ...toCommentVote(vote, users.get(vote.user_id)!, context.urls), ...tallies }
      if (created) reply.header('location', answer.url)
      return reply.code(created ? 201 : 200).send(answer)
    },
  })

  app.get('/api/comment_votes/:id/', {
    schema: { summary: 'One vote on a comment', params: IdParams, response: { 200: CommentVote, ...readErrors } },
    config: {
      access: 'anyone',
      resource: { name: 'Comment Vote Instance', description: 'One vote on a comment; its voter may withdraw it.' },
    },
    handler: async (request) => {
      const row = await repository().findVisible(request.params.id, viewerOf(request.caller))
      if (!row) throw NotFound()
      const [vote] = await commentVotesFromRows(viewContextOf(app, request), [row])
      return vote
    },
  })

  /** The voter; someone else's private vote is not there for the caller (404, as its detail answers). */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    const vote = id === null ? undefined : await repository().findById(id)
    if (!vote) return undefined
    const caller = request.caller
    return vote.private && vote.user_id !== caller?.id && !caller?.isStaff ? undefined : vote.user_id
  }
  app.delete('/api/comment_votes/:id/', {
    schema: {
      summary: 'Withdraw a vote: it stays listed with active false and no longer counts',
      params: IdParams,
      response: { 204: NoContent, ...writeErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await withdrawCommentVote(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })
}
