import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { NotFound } from '../../../core/errors.ts'
import { listing, pageOfRows } from '../../../http/listing.ts'
import { column, orderingTerms } from '../../../db/ordering.ts'
import { Page, readErrors } from '../../../http/schemas.ts'
import { groupAccess } from '../group-access.ts'
import { callerIdOf } from '../http.ts'
import { JOIN_REQUEST_ORDERING, joinRequestsRepository, type JoinRequestRow } from './join-requests.repository.ts'
import { JoinRequest, JoinRequestCreate, JoinRequestListQuery } from './join-requests.schemas.ts'
import { answerJoinRequest, createJoinRequest, joinRequestsFromRows, type JoinRequestAnswer } from './join-requests.service.ts'
import { EmptyBody, IdParams, writeErrors } from '../../../http/route-schemas.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { viewContextOf } from '../../../http/view-context.ts'

type Party = 'requester' | 'administrator' | 'either'

/** The owner check of a join request: the requester, the group's administrators, or either. */
function requestController(app: App, party: Party) {
  return async (request: FastifyRequest): Promise<number | null | undefined> => {
    const id = idParam(request)
    const joinRequest = id === null ? undefined : await joinRequestsRepository(app.db).find(id)
    if (!joinRequest) return undefined
    const callerId = callerIdOf(request)
    if (party === 'requester') return joinRequest.user_id
    if (party === 'either' && joinRequest.user_id === callerId) return callerId
    return groupAccess(app.db).controller(joinRequest.group_id, callerId)
  }
}

const ACTIONS: { answer: JoinRequestAnswer; party: Party; summary: string }[] = [
  { answer: 'accept', party: 'administrator', summary: 'Accept a request (administrators): the requester becomes a member' },
  { answer: 'reject', party: 'administrator', summary: 'Reject a request (administrators)' },
  { answer: 'withdraw', party: 'requester', summary: 'Withdraw your request' },
]

export function joinRequestRoutes(app: App): void {
  const one = async (request: FastifyRequest, row: JoinRequestRow | undefined) => {
    if (!row) throw NotFound()
    const [joinRequest] = await joinRequestsFromRows(viewContextOf(app, request), [row])
    return joinRequest
  }

  app.get('/api/group_join_requests/', {
    schema: {
      summary: 'Your join requests and those to the groups you administer',
      querystring: JoinRequestListQuery,
      response: { 200: Page(JoinRequest), ...readErrors },
    },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Group Join Request List',
        description: 'Requests to join groups that take them: yours, and those to the groups you administer. Ask with {group, message}.',
      },
    },
    handler: async (request) => {
      const filters = request.query
      const ordering = orderingTerms(filters.ordering, JOIN_REQUEST_ORDERING, ['-created_at'], column('group_join_requests.id'))
      const result = await pageOfRows<JoinRequestRow>(
        request,
        joinRequestsRepository(app.db).filtered(filters, signedIn(request)),
        (q) => q.selectAll('group_join_requests'),
        ordering,
      )
      return listing(request, result, (rows) => joinRequestsFromRows(viewContextOf(app, request), rows))
    },
  })

  app.post('/api/group_join_requests/', {
    schema: { summary: 'Ask to join a group that takes requests', body: JoinRequestCreate, response: { 201: JoinRequest, ...writeErrors } },
    config: { access: 'signed-in' },
    handler: async (request, reply) =>
      reply.code(201).send(await one(request, await createJoinRequest(app.db, signedIn(request), request.body))),
  })

  app.get('/api/group_join_requests/:id/', {
    schema: { summary: 'One join request', params: IdParams, response: { 200: JoinRequest, ...readErrors } },
    config: {
      access: 'owner',
      owner: requestController(app, 'either'),
      resource: {
        name: 'Group Join Request Instance',
        description: "A request to join a group, seen by the requester and the group's administrators.",
      },
    },
    handler: async (request) => one(request, await joinRequestsRepository(app.db).find(request.params.id)),
  })

  for (const { answer, party, summary } of ACTIONS) {
    const name = answer.charAt(0).toUpperCase() + answer.slice(1)
    app.post(`/api/group_join_requests/:id/${answer}/`, {
      schema: { summary, params: IdParams, body: EmptyBody, response: { 200: JoinRequest, ...writeErrors } },
      config: {
        access: 'owner',
        owner: requestController(app, party),
        resource: { name: `Group Join Request ${name}`, description: `${summary}. The body may be empty.` },
      },
      handler: async (request) => one(request, await answerJoinRequest(app.db, request.params.id, answer, signedIn(request).id)),
    })
  }
}
