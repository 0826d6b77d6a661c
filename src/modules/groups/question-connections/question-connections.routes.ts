import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { NotFound } from '../../../core/errors.ts'
import { listRoute } from '../../../http/list-route.ts'
import { readErrors } from '../../../http/schemas.ts'
import { groupAccess } from '../group-access.repository.ts'
import { questionConnectionsRepository } from './question-connections.repository.ts'
import {
  QuestionConnection,
  QuestionConnectionCreate,
  QuestionConnectionListQuery,
  QuestionConnectionPatch,
  QuestionConnectionReplace,
  type QuestionConnectionChanges,
} from './question-connections.schemas.ts'
import { createQuestionConnection, toQuestionConnection, updateQuestionConnection } from './question-connections.service.ts'
import { IdParams, NoContent, writeErrors } from '../../../http/route-schemas.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { urlsFor } from '../../../http/urls.ts'

export function questionConnectionRoutes(app: App): void {
  const repository = () => questionConnectionsRepository(app.db)
  /** The group's administrators control its questions. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    const connection = id === null ? undefined : await repository().find(id)
    return connection ? groupAccess(app.db).controller(connection.group_id, signedIn(request).id) : undefined
  }

  listRoute(app, '/api/group_question_connections/', {
    summary: 'Which questions are in which group, active or disabled',
    querystring: QuestionConnectionListQuery,
    item: QuestionConnection,
    config: {
      access: 'anyone',
      resource: {
        name: 'Group Question Connection List',
        description: 'Questions of groups. Administrators add questions with {group, question} and disable or enable them with {active}.',
      },
    },
    rows: (request, list) => repository().page(request.query, request.caller, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toQuestionConnection(row, urls))
    },
  })

  app.post('/api/group_question_connections/', {
    schema: {
      summary: 'Add a question to a group you administer',
      body: QuestionConnectionCreate,
      response: { 201: QuestionConnection, ...writeErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const row = await createQuestionConnection(app.db, signedIn(request), request.body)
      return reply.code(201).send(toQuestionConnection(row, urlsFor(request)))
    },
  })

  app.get('/api/group_question_connections/:id/', {
    schema: { summary: 'One question of a group', params: IdParams, response: { 200: QuestionConnection, ...readErrors } },
    config: {
      access: 'anyone',
      resource: {
        name: 'Group Question Connection Instance',
        description: "A question in a group; the group's administrators change active or remove it.",
      },
    },
    handler: async (request) => {
      const row = await repository().findVisible(request.params.id, request.caller)
      if (!row) throw NotFound()
      return toQuestionConnection(row, urlsFor(request))
    },
  })

  for (const [method, body] of [
    ['PUT', QuestionConnectionReplace],
    ['PATCH', QuestionConnectionPatch],
  ] as const) {
    app.route({
      method,
      url: '/api/group_question_connections/:id/',
      schema: {
        summary: 'Disable or enable a question in the group',
        params: IdParams,
        body,
        response: { 200: QuestionConnection, ...writeErrors },
      },
      config: { access: 'owner', owner },
      handler: async (request: FastifyRequest) => {
        const { id } = request.params as { id: number }
        const row = await updateQuestionConnection(app.db, id, request.body as QuestionConnectionChanges)
        return toQuestionConnection(row, urlsFor(request))
      },
    })
  }

  app.delete('/api/group_question_connections/:id/', {
    schema: { summary: 'Take a question out of the group', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      if (!(await repository().find(request.params.id))) throw NotFound()
      await repository().remove(request.params.id)
      return reply.code(204).send(null)
    },
  })
}
