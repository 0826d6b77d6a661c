import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { readErrors } from '../../http/schemas.ts'
import { ownOrStaff } from './delegation-rules.ts'
import { questionDelegationsRepository, toQuestionDelegation, type QuestionDelegationRow } from './question-delegations.repository.ts'
import {
  QuestionDelegation,
  QuestionDelegationCreate,
  QuestionDelegationListQuery,
  QuestionDelegationsToMe,
  QuestionDelegationUpdate,
} from './question-delegations.schemas.ts'
import { createQuestionDelegation, revokeQuestionDelegation, updateQuestionDelegation } from './question-delegations.service.ts'
import { IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { readBody } from '../../http/pk-body.ts'
import { reducedUsers } from '../users/users.service.ts'
import { urlsFor } from '../../http/urls.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** `question_delegation` (the spec's singular name): delegations for one question. */
export function questionDelegationRoutes(app: App): void {
  const repository = () => questionDelegationsRepository(app.db)
  /** A delegation belongs to the user who delegates. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : (await repository().find(id))?.user_id
  }

  const items = async (request: FastifyRequest, rows: QuestionDelegationRow[]) => {
    const urls = urlsFor(request)
    const users = await reducedUsers(
      viewContextOf(app, request),
      rows.map((row) => row.trustee_id),
    )
    return rows.map((row) => toQuestionDelegation(row, users, urls))
  }
  const item = async (request: FastifyRequest, row: QuestionDelegationRow) => (await items(request, [row]))[0]

  listRoute(app, '/api/question_delegation/', {
    summary: 'Your question delegations',
    querystring: QuestionDelegationListQuery,
    item: QuestionDelegation,
    config: {
      access: 'signed-in',
      resource: {
        name: 'Question Delegation List',
        description:
          'Your delegations for single questions: who answers for you on that question (a trustee), or a block. Active ones; history=1 adds revoked ones. Delegate with {question, trustee}.',
      },
    },
    rows: (request, list) => repository().page(signedIn(request).id, request.query, list),
    items: (rows, request) => items(request, rows),
  })

  app.post('/api/question_delegation/', {
    schema: {
      summary: 'Delegate on a question (replaces your active delegation on it)',
      body: QuestionDelegationCreate,
      response: { 201: QuestionDelegation, ...writeErrors },
    },
    config: { access: 'signed-in' },
    preValidation: readBody({ question: 'pk', trustee: 'nullable-pk' }),
    handler: async (request, reply) => {
      const created = await item(request, await createQuestionDelegation(app.db, signedIn(request), request.body))
      return reply.code(201).header('location', created.url).send(created)
    },
  })

  app.get('/api/question_delegation/to_me/', {
    schema: { summary: 'How many people delegate to you, per question', response: { 200: QuestionDelegationsToMe, ...readErrors } },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Question Delegation To Me',
        description: 'Per question, how many active delegations name you as trustee. Counts only, never who.',
      },
    },
    handler: async (request) => {
      const urls = urlsFor(request)
      const counts = await repository().countsFor(signedIn(request))
      return {
        results: counts.map((row) => ({
          question: row.question_id,
          question_url: urls.detail('questions', row.question_id),
          count: row.count,
        })),
      }
    },
  })

  app.get('/api/question_delegation/:id/', {
    schema: { summary: 'One of your question delegations', params: IdParams, response: { 200: QuestionDelegation, ...readErrors } },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Question Delegation Instance',
        description: 'One of your question delegations. Change its trustee, or revoke it.',
      },
    },
    handler: async (request) => item(request, ownOrStaff(signedIn(request), await repository().find(request.params.id))),
  })

  app.patch('/api/question_delegation/:id/', {
    schema: {
      summary: 'Change the trustee (a new delegation replaces this one)',
      params: IdParams,
      body: QuestionDelegationUpdate,
      response: { 200: QuestionDelegation, ...writeErrors },
    },
    config: { access: 'owner', owner },
    preValidation: readBody({ trustee: 'nullable-pk' }),
    handler: async (request) => item(request, await updateQuestionDelegation(app.db, request.params.id, request.body)),
  })

  app.delete('/api/question_delegation/:id/', {
    schema: { summary: 'Revoke the delegation', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await revokeQuestionDelegation(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })
}
