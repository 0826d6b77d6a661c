import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { groupsRepository } from './groups.repository.ts'
import { Group, GroupCreate, GroupListQuery, GroupPatch, GroupReplace, JoinBody, type GroupChanges } from './groups.schemas.ts'
import { createGroup, deleteGroup, groupsFromRows, joinGroup, leaveGroup, updateGroup } from './groups.service.ts'
import { inviteRoutes } from './invites/invites.routes.ts'
import { joinRequestRoutes } from './join-requests/join-requests.routes.ts'
import { membershipRoutes } from './memberships/memberships.routes.ts'
import { questionConnectionRoutes } from './question-connections/question-connections.routes.ts'
import { EmptyBody, IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** groups (join, leave), group_memberships, group_invites, group_join_requests and group_question_connections. */
export function groupRoutes(app: App): void {
  groupResourceRoutes(app)
  membershipRoutes(app)
  inviteRoutes(app)
  joinRequestRoutes(app)
  questionConnectionRoutes(app)
}

function groupResourceRoutes(app: App): void {
  const repository = () => groupsRepository(app.db)
  /** Only the group's owner (and staff) edit or delete it; administrators manage members and questions. */
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    const group = id === null ? undefined : await repository().find(id)
    return group ? group.owner_id : undefined
  }
  const loadGroup = async (request: FastifyRequest, id: number): Promise<Group> => {
    const row = await repository().find(id)
    if (!row) throw NotFound()
    const [group] = await groupsFromRows(viewContextOf(app, request), [row])
    return group
  }

  listRoute(app, '/api/groups/', {
    summary: 'Groups of people with their questions',
    querystring: GroupListQuery,
    item: Group,
    config: {
      access: 'anyone',
      resource: {
        name: 'Group List',
        description: 'Groups people join to answer questions together. my_membership is set for the groups the caller belongs to.',
      },
    },
    rows: (request, list) => repository().page(request.query, list),
    items: (rows, request) => groupsFromRows(viewContextOf(app, request), rows),
  })

  app.post('/api/groups/', {
    schema: {
      summary: 'Create a group; the caller becomes its owner and administrator',
      body: GroupCreate,
      response: { 201: Group, ...writeErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      const id = await createGroup(app.db, signedIn(request), request.body)
      return reply.code(201).send(await loadGroup(request, id))
    },
  })

  app.get('/api/groups/:id/', {
    schema: { summary: 'One group', params: IdParams, response: { 200: Group, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Group Instance', description: 'One group. Its owner edits and deletes it.' } },
    handler: async (request) => loadGroup(request, request.params.id),
  })

  for (const [method, body] of [
    ['PUT', GroupReplace],
    ['PATCH', GroupPatch],
  ] as const) {
    app.route({
      method,
      url: '/api/groups/:id/',
      schema: {
        summary: method === 'PUT' ? 'Edit a group (name required)' : 'Edit some fields of a group',
        params: IdParams,
        body,
        response: { 200: Group, ...writeErrors },
      },
      config: { access: 'owner', owner },
      handler: async (request: FastifyRequest) => {
        const { id } = request.params as { id: number }
        await updateGroup(app.db, id, request.body as GroupChanges)
        return loadGroup(request, id)
      },
    })
  }

  app.delete('/api/groups/:id/', {
    schema: {
      summary: 'Delete a group with its memberships, invitations, requests and question connections',
      params: IdParams,
      response: { 204: NoContent, ...writeErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await deleteGroup(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })

  app.post('/api/groups/:id/join/', {
    schema: {
      summary: 'Join a group: 201 when a membership or join request was made, 200 when nothing changed',
      params: IdParams,
      body: JoinBody,
      response: { 200: Group, 201: Group, ...writeErrors },
    },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Group Join',
        description: 'Join an open group, accept your invitation, or ask to join a group that takes requests. The body may be empty.',
      },
    },
    handler: async (request, reply) => {
      const created = await joinGroup(app.db, signedIn(request), request.params.id, request.body)
      return reply.code(created ? 201 : 200).send(await loadGroup(request, request.params.id))
    },
  })

  app.post('/api/groups/:id/leave/', {
    schema: {
      summary: 'Leave a group and withdraw a pending join request',
      params: IdParams,
      body: EmptyBody,
      response: { 200: Group, ...writeErrors },
    },
    config: {
      access: 'signed-in',
      resource: { name: 'Group Leave', description: 'Leave a group; the owner cannot. The body may be empty.' },
    },
    handler: async (request) => {
      await leaveGroup(app.db, signedIn(request), request.params.id)
      return loadGroup(request, request.params.id)
    },
  })
}
