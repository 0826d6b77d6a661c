import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { NotFound } from '../../../core/errors.ts'
import { listRoute } from '../../../http/list-route.ts'
import { readErrors } from '../../../http/schemas.ts'
import { groupAccess } from '../group-access.repository.ts'
import { membershipsRepository, type MembershipRow } from './memberships.repository.ts'
import { Membership, MembershipListQuery, MembershipPatch } from './memberships.schemas.ts'
import { deleteMembership, membershipsFromRows, updateMembership } from './memberships.service.ts'
import { IdParams, NoContent, writeErrors } from '../../../http/route-schemas.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { viewContextOf } from '../../../http/view-context.ts'

/** The member and the group's administrators control a membership. */
async function membershipController(app: App, request: FastifyRequest): Promise<number | null | undefined> {
  const id = idParam(request)
  const membership = id === null ? undefined : await membershipsRepository(app.db).find(id)
  if (!membership) return undefined
  const callerId = signedIn(request).id
  if (membership.user_id === callerId) return callerId
  return groupAccess(app.db).controller(membership.group_id, callerId)
}

export function membershipRoutes(app: App): void {
  const owner = (request: FastifyRequest) => membershipController(app, request)
  const one = async (request: FastifyRequest, row: MembershipRow | undefined) => {
    if (!row) throw NotFound()
    const [membership] = await membershipsFromRows(viewContextOf(app, request), [row])
    return membership
  }

  listRoute(app, '/api/group_memberships/', {
    summary: 'Who belongs to which group',
    querystring: MembershipListQuery,
    item: Membership,
    config: {
      access: 'anyone',
      resource: {
        name: 'Group Membership List',
        description:
          "Members of groups, with their roles. Filter by group or user; e-mail addresses only reach a group's administrators, and only when the member shares them.",
      },
    },
    rows: (request, list) => membershipsRepository(app.db).page(request.query, list),
    items: (rows, request) => membershipsFromRows(viewContextOf(app, request), rows),
  })

  app.get('/api/group_memberships/:id/', {
    schema: { summary: 'One membership', params: IdParams, response: { 200: Membership, ...readErrors } },
    config: {
      access: 'anyone',
      resource: {
        name: 'Group Membership Instance',
        description:
          'One person in one group. The member may leave (DELETE) or change share_email; administrators change roles and remove members.',
      },
    },
    handler: async (request) => one(request, await membershipsRepository(app.db).find(request.params.id)),
  })

  app.patch('/api/group_memberships/:id/', {
    schema: {
      summary: 'Change a role (administrators) or share_email (the member)',
      params: IdParams,
      body: MembershipPatch,
      response: { 200: Membership, ...writeErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request) => one(request, await updateMembership(app.db, signedIn(request), request.params.id, request.body)),
  })

  app.delete('/api/group_memberships/:id/', {
    schema: {
      summary: 'Leave the group, or remove a member (administrators)',
      params: IdParams,
      response: { 204: NoContent, ...writeErrors },
    },
    config: { access: 'owner', owner },
    handler: async (request, reply) => {
      await deleteMembership(app.db, request.params.id)
      return reply.code(204).send(null)
    },
  })
}
