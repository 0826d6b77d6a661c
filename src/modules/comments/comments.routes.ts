import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { commentVoteRoutes } from './comment-votes.routes.ts'
import { commentsRepository } from './comments.repository.ts'
import { Comment, CommentCreate, CommentListQuery, CommentPatch, CommentPut, SUBTYPES } from './comments.schemas.ts'
import { commentsFromRows, createComment, deleteComment, loadComment, updateComment } from './comments.service.ts'
import { viewerOf } from '../../core/caller.ts'
import { moderationRoutes } from './moderation.routes.ts'
import { voteCommentRoutes } from './vote-comments.routes.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { drfBody } from '../../http/drf-body.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** How the text and subtype of a comment are read, as DRF's CharField and ChoiceField read them. */
const COMMENT_FIELDS = { trim: ['text'], notBlank: ['text'], choices: { subtype: SUBTYPES } }

/** comments, comment_votes, vote_comments, comment reports and moderation. */
export function commentRoutes(app: App): void {
  /** The author of a comment the caller can see; a comment they cannot see does not exist for them. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    if (id === null) return undefined
    return (await commentsRepository(app.db).findVisible(id, viewerOf(request.caller)))?.user_id
  }

  listRoute(app, '/api/comments/', {
    summary: 'Comments on questions, replies listed flat beside the comments they answer',
    querystring: CommentListQuery,
    item: Comment,
    config: {
      access: 'anyone',
      resource: { name: 'Comment List', description: 'What people say about questions: information, reasons and suggestions.' },
    },
    rows: (request, list) => commentsRepository(app.db).page(request.query, viewerOf(request.caller), list),
    items: (rows, request) => commentsFromRows(viewContextOf(app, request), rows),
  })

  app.post('/api/comments/', {
    schema: { summary: 'Comment on a question, or reply to a comment', body: CommentCreate, response: { 201: Comment, ...writeErrors } },
    config: { access: 'signed-in' },
    preValidation: drfBody(COMMENT_FIELDS),
    handler: async (request, reply) => {
      const id = await createComment(app.db, signedIn(request), request.body)
      const comment = await loadComment(viewContextOf(app, request), id)
      return reply.code(201).header('location', comment.url).send(comment)
    },
  })

  app.get('/api/comments/:id/', {
    schema: { summary: 'One comment', params: IdParams, response: { 200: Comment, ...readErrors } },
    config: {
      access: 'anyone',
      resource: { name: 'Comment Instance', description: 'One comment; its author (or staff) may edit or remove it.' },
    },
    handler: async (request) => loadComment(viewContextOf(app, request), request.params.id),
  })

  const update = async (request: FastifyRequest<{ Params: { id: number }; Body: CommentPatch }>) => {
    await updateComment(app.db, signedIn(request), request.params.id, request.body)
    return loadComment(viewContextOf(app, request), request.params.id)
  }
  app.put('/api/comments/:id/', {
    schema: {
      summary: 'Rewrite a comment (text required, subtype optional)',
      params: IdParams,
      body: CommentPut,
      response: { 200: Comment, ...writeErrors },
    },
    config: { access: 'owner', owner },
    preValidation: drfBody(COMMENT_FIELDS),
    handler: update,
  })
  app.patch('/api/comments/:id/', {
    schema: {
      summary: 'Change the text or subtype of a comment',
      params: IdParams,
      body: CommentPatch,
      response: { 200: Comment, ...writeErrors },
    },
    config: { access: 'owner', owner },
    preValidation: drfBody(COMMENT_FIELDS),
    handler: update,
  })

  app.delete('/api/comments/:id/', {
    schema: {
      summary: 'Remove a comment with its votes; its replies move up to its parent',
      params: IdParams,
      response: { 204: NoContent, ...writeErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await deleteComment(app.db, signedIn(request), request.params.id)
      return reply.code(204).send(null)
    },
  })

  moderationRoutes(app)
  commentVoteRoutes(app)
  voteCommentRoutes(app)
}
