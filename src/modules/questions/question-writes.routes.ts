import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { connectionRoutes } from './connections/connections.routes.ts'
import { directVoteRoutes } from './direct-votes/direct-votes.routes.ts'
import { friendsAnswersRoutes } from './friends-answers/friends-answers.routes.ts'
import { linkRoutes } from './links/links.routes.ts'
import { questionTagRoutes } from './question-tags/question-tags.routes.ts'
import { createQuestion, deleteQuestion, updateQuestion } from './question-writes.service.ts'
import {
  QuestionCreateBody,
  QuestionPatchBody,
  QuestionPutBody,
  questionWriteErrors,
  type QuestionUpdateBody,
} from './question-writes.schemas.ts'
import { questionOwner } from '../../access/question-access.ts'
import { Question } from './questions.schemas.ts'
import { loadQuestion } from './questions.service.ts'
import { IdParams, NoContent } from '../../http/route-schemas.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** creating, editing, publishing and deleting questions; question_links, question_tags, question_question_connections and their votes. */
export function questionWriteRoutes(app: App): void {
  const owner = (request: FastifyRequest) => questionOwner(app.db, request.caller, idParam(request))

  const answerWith = async (request: FastifyRequest, reply: FastifyReply, questionId: number, status: 200 | 201) => {
    const question = await loadQuestion(viewContextOf(app, request), request.caller, questionId)
    if (!question) throw NotFound()
    if (status === 201) reply.header('location', question.url)
    return reply.code(status).send(question)
  }

  app.post('/api/questions/', {
    schema: {
      summary: 'Ask a question: 201 with the question in its full form',
      description:
        'Choices make a multiple-choice (mcq) question, none a likert one. Tags, topic, group, geo and collections must name existing objects (collections your own).',
      body: QuestionCreateBody,
      response: { 201: Question, ...questionWriteErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => answerWith(request, reply, await createQuestion(app.db, signedIn(request), request.body), 201),
  })

  const update = async (request: FastifyRequest<{ Params: { id: number }; Body: QuestionUpdateBody }>, reply: FastifyReply) => {
    await updateQuestion(app.db, signedIn(request), request.params.id, request.body)
    return answerWith(request, reply, request.params.id, 200)
  }
  app.patch('/api/questions/:id/', {
    schema: {
      summary: 'Edit a question: only the fields sent change',
      params: IdParams,
      body: QuestionPatchBody,
      response: { 200: Question, ...questionWriteErrors },
    },
    config: { access: 'owner', owner },
    handler: update,
  })
  app.put('/api/questions/:id/', {
    schema: {
      summary: 'Edit a question, title required',
      params: IdParams,
      body: QuestionPutBody,
      response: { 200: Question, ...questionWriteErrors },
    },
    config: { access: 'owner', owner },
    handler: update,
  })
  app.delete('/api/questions/:id/', {
    schema: {
      summary: 'Delete a question nobody has answered yet',
      params: IdParams,
      response: { 204: NoContent, ...questionWriteErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await deleteQuestion(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })

  friendsAnswersRoutes(app)
  linkRoutes(app)
  questionTagRoutes(app)
  connectionRoutes(app)
  directVoteRoutes(app)
}
