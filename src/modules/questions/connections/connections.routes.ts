import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { ValidationFailed, type FieldErrors, invalidPk } from '../../../core/errors.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { refusingViolations } from '../../../core/constraint-errors.ts'
import { visibleQuestion } from '../../../access/question-access.ts'
import { questionWriteErrors } from '../question-writes.schemas.ts'
import { attachmentReads, attachmentRemoval } from '../question-attachments.routes.ts'
import { connectionsRepository, toConnectionItem } from './connections.repository.ts'
import { ConnectionCreateBody, ConnectionItem, ConnectionListQuery } from './connections.schemas.ts'
import { urlsFor } from '../../../http/urls.ts'

/** question_question_connections: anyone signed in may point from a question to a related one; the creator or staff remove it. */
export function connectionRoutes(app: App): void {
  const repository = () => connectionsRepository(app.db)
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    const row = id === null ? undefined : await repository().find(id, request.caller)
    return row ? row.user_id : undefined
  }

  const connections = {
    path: '/api/question_question_connections/',
    querystring: ConnectionListQuery,
    item: ConnectionItem,
    list: {
      summary: 'Connections between related questions',
      resource: {
        name: 'Question Question Connection List',
        description: 'Links from a question to related questions, with votes on how related they are.',
      },
    },
    instance: {
      summary: 'One connection between questions',
      resource: { name: 'Question Question Connection Instance', description: 'One connection between related questions.' },
    },
    removal: { summary: 'Remove a connection you made (its votes go with it)', owner },
    repository,
    toItem: toConnectionItem,
  }
  attachmentReads(app, connections)

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

  attachmentRemoval(app, connections)
}
