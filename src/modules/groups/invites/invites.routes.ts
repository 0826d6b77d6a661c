import type { App } from '../../../http/app-type.ts'
import { pendingActionRoutes } from '../pending-actions.routes.ts'
import { invitesRepository } from './invites.repository.ts'
import { PendingListQuery } from '../pending-actions.schemas.ts'
import { Invite, InviteCreate } from './invites.schemas.ts'
import { answerInvite, createInvite, invitesFromRows } from './invites.service.ts'

/** group_invites: administrators invite, the invitee accepts or declines, administrators revoke. */
export function inviteRoutes(app: App): void {
  pendingActionRoutes(app, {
    path: 'group_invites',
    name: 'Group Invite',
    item: Invite,
    list: {
      summary: 'Your invitations and those of the groups you administer',
      description: 'Invitations to join groups: yours, and those of the groups you administer. Administrators invite with {group, user}.',
      querystring: PendingListQuery,
    },
    create: { summary: 'Invite someone to a group you administer', body: InviteCreate, run: createInvite },
    detail: { summary: 'One invitation', description: "An invitation, seen by the invitee and the group's administrators." },
    repository: invitesRepository,
    render: invitesFromRows,
    actions: [
      { answer: 'accept', party: 'person', summary: 'Accept your invitation: you become a member' },
      { answer: 'decline', party: 'person', summary: 'Decline your invitation' },
      { answer: 'revoke', party: 'administrator', summary: 'Withdraw an invitation (administrators)' },
    ],
    answer: (db, id, answer) => answerInvite(db, id, answer),
  })
}
