import type { FastifyRequest } from 'fastify'
import type { App } from '../../../http/app-type.ts'
import { NotFound } from '../../../core/errors.ts'
import { listing, pageOfRows } from '../../../http/listing.ts'
import { column, orderingTerms } from '../../../db/ordering.ts'
import { Page, readErrors } from '../../../http/schemas.ts'
import { groupAccess } from '../group-access.ts'
import { callerIdOf } from '../http.ts'
import { INVITE_ORDERING, invitesRepository, type InviteRow } from './invites.repository.ts'
import { Invite, InviteCreate, InviteListQuery } from './invites.schemas.ts'
import { answerInvite, createInvite, invitesFromRows, type InviteAnswer } from './invites.service.ts'
import { EmptyBody, IdParams, writeErrors } from '../../../http/route-schemas.ts'
import { idParam, signedIn } from '../../../http/permissions.ts'
import { viewContextOf } from '../../../http/view-context.ts'

type Party = 'invitee' | 'administrator' | 'either'

/** The owner check of an invitation: the invitee, the group's administrators, or either. */
function inviteController(app: App, party: Party) {
  return async (request: FastifyRequest): Promise<number | null | undefined> => {
    const id = idParam(request)
    const invite = id === null ? undefined : await invitesRepository(app.db).find(id)
    if (!invite) return undefined
    const callerId = callerIdOf(request)
    if (party === 'invitee') return invite.user_id
    if (party === 'either' && invite.user_id === callerId) return callerId
    return groupAccess(app.db).controller(invite.group_id, callerId)
  }
}

const ACTIONS: { answer: InviteAnswer; party: Party; summary: string }[] = [
  { answer: 'accept', party: 'invitee', summary: 'Accept your invitation: you become a member' },
  { answer: 'decline', party: 'invitee', summary: 'Decline your invitation' },
  { answer: 'revoke', party: 'administrator', summary: 'Withdraw an invitation (administrators)' },
]

export function inviteRoutes(app: App): void {
  const one = async (request: FastifyRequest, row: InviteRow | undefined) => {
    if (!row) throw NotFound()
    const [invite] = await invitesFromRows(viewContextOf(app, request), [row])
    return invite
  }

  app.get('/api/group_invites/', {
    schema: {
      summary: 'Your invitations and those of the groups you administer',
      querystring: InviteListQuery,
      response: { 200: Page(Invite), ...readErrors },
    },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Group Invite List',
        description: 'Invitations to join groups: yours, and those of the groups you administer. Administrators invite with {group, user}.',
      },
    },
    handler: async (request) => {
      const filters = request.query
      const ordering = orderingTerms(filters.ordering, INVITE_ORDERING, ['-created_at'], column('group_invites.id'))
      const result = await pageOfRows<InviteRow>(
        request,
        invitesRepository(app.db).filtered(filters, signedIn(request)),
        (q) => q.selectAll('group_invites'),
        ordering,
      )
      return listing(request, result, (rows) => invitesFromRows(viewContextOf(app, request), rows))
    },
  })

  app.post('/api/group_invites/', {
    schema: { summary: 'Invite someone to a group you administer', body: InviteCreate, response: { 201: Invite, ...writeErrors } },
    config: { access: 'signed-in' },
    handler: async (request, reply) =>
      reply.code(201).send(await one(request, await createInvite(app.db, signedIn(request), request.body))),
  })

  app.get('/api/group_invites/:id/', {
    schema: { summary: 'One invitation', params: IdParams, response: { 200: Invite, ...readErrors } },
    config: {
      access: 'owner',
      owner: inviteController(app, 'either'),
      resource: { name: 'Group Invite Instance', description: "An invitation, seen by the invitee and the group's administrators." },
    },
    handler: async (request) => one(request, await invitesRepository(app.db).find(request.params.id)),
  })

  for (const { answer, party, summary } of ACTIONS) {
    const name = answer.charAt(0).toUpperCase() + answer.slice(1)
    app.post(`/api/group_invites/:id/${answer}/`, {
      schema: { summary, params: IdParams, body: EmptyBody, response: { 200: Invite, ...writeErrors } },
      config: {
        access: 'owner',
        owner: inviteController(app, party),
        resource: { name: `Group Invite ${name}`, description: `${summary}. The body may be empty.` },
      },
      handler: async (request) => one(request, await answerInvite(app.db, request.params.id, answer)),
    })
  }
}
