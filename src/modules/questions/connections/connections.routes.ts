import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { NotFound, ValidationFailed, type FieldErrors, invalidPk } from '../../../core/errors.ts'
import { listRoute } from '../../../http/list-route.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { readErrors } from '../../../http/schemas.ts'
import { refusingViolations } from '../../../core/constraint-errors.ts'
import { visibleQuestion } from '../../../access/question-access.ts'
import { questionWriteErrors } from '../question-writes.schemas.ts'
import { connectionsRepository, toConnectionItem } from './connections.repository.ts'
import { ConnectionCreateBody, ConnectionItem, ConnectionListQuery } from './connections.schemas.ts'
import { IdParams, NoContent } from '../../../http/route-schemas.ts'
import { urlsFor } from '../../../http/urls.ts'

/** question_question_connections: anyone signed in may point from a question to a related one; the creator or staff remove it. */
export function connectionRoutes(app: App): void {
  const repository = () => connectionsRepository(app.db)
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    const row = id === null ? undefined : await repository().find(id, request.caller)
    return row ? row.user_id : undefined
  }

  listRoute(app, '/api/question_question_connections/', {
    summary: 'Connections between related questions',
    querystring: ConnectionListQuery,
    item: ConnectionItem,
    config: {
      access: 'anyone',
      resource: {
        name: 'Question Question Connection List',
        description: 'Links from a question to related questions, with votes on how related they are.',
      },
    },
    rows: (request, list) => repository().page(request.query, request.caller, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toConnectionItem(row, urls))
    },
  })

  app.post('/api/question_question_connections/', {
    schema: {
      summary: 'Connect a question to a related one: 201 with the connection',
      body: ConnectionCreateBody,
      response: { 201: ConnectionItem, ...questionWriteErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const caller = signedIn(request)
      const { question_from: from, question_to: to } = request.body
      const errors: FieldErrors = {}
      for (const [field, id] of [
        ['question_from', from],
        ['question_to', to],
      ] as const) {
        if (!(await visibleQuestion(app.db, caller, id))) errors[field] = [invalidPk(id)]
      }
      if (Object.keys(errors).length) throw ValidationFailed(errors)
      const row = await refusingViolations(() => repository().insert({ from_question_id: from, to_question_id: to, user_id: caller.id }), {
        named: {
          question_question_connections_unique: { non_field_errors: ['The fields question_from, question_to must make a unique set.'] },
          question_question_connections_not_self: { non_field_errors: ['A question cannot be connected to itself.'] },
          question_question_connections_from_question_id_fkey: { question_from: [invalidPk(from)] },
          question_question_connections_to_question_id_fkey: { question_to: [invalidPk(to)] },
        },
      })
      const item = toConnectionItem(row, urlsFor(request))
      return reply.code(201).header('location', item.url).send(item)
    },
  })

  app.get('/api/question_question_connections/:id/', {
    schema: { summary: 'One connection between questions', params: IdParams, response: { 200: ConnectionItem, ...readErrors } },
    config: {
      access: 'anyone',
      resource: { name: 'Question Question Connection Instance', description: 'One connection between related questions.' },
    },
    handler: async (request) => {
      const row = await repository().find(request.params.id, request.caller)
      if (!row) throw NotFound()
      return toConnectionItem(row, urlsFor(request))
    },
  })

  app.delete('/api/question_question_connections/:id/', {
    schema: {
      summary: 'Remove a connection you made (its votes go with it)',
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
