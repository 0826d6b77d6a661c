import type { Kysely } from 'kysely'
import type { Caller } from '../../../core/caller.ts'
import type { Database } from '../../../db/database.ts'
import { PermissionDenied, ValidationFailed, fieldError, type FieldErrors, invalidPk } from '../../../core/errors.ts'
import { iso } from '../../../core/time.ts'
import { refusingViolations } from '../../../core/constraint-errors.ts'
import { groupAccess } from '../group-access.repository.ts'
import { groupsRepository } from '../groups.repository.ts'
import { membershipsRepository } from '../memberships/memberships.repository.ts'
import { answerPending } from '../pending-actions.service.ts'
import { activeUserExists, loadUserSummaries, summaryOf } from '../../users/user-summaries.ts'
import { invitesRepository, type InviteRow } from './invites.repository.ts'
import type { Invite, InviteCreate } from './invites.schemas.ts'
import { notificationEvents } from '../../../engines/notifications/notification-events.ts'
import type { ViewContext } from '../../../core/view-context.ts'

export const NOT_PENDING = 'This invitation is no longer pending.'

export function toInvite(row: InviteRow, context: ViewContext, users: Awaited<ReturnType<typeof loadUserSummaries>>): Invite {
  return {
    id: row.id,
    url: context.urls.detail('group_invites', row.id),
    group: row.group_id,
    user: row.user_id,
    user_info: row.user_id === null ? null : summaryOf(users.get(row.user_id)),
    email: row.email,
    invited_by: row.invited_by_id,
    status: row.status,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}

export async function invitesFromRows(context: ViewContext, rows: InviteRow[]): Promise<Invite[]> {
  const users = await loadUserSummaries(
    context,
    rows.map((row) => row.user_id).filter((id): id is number => id !== null),
  )
  return rows.map((row) => toInvite(row, context, users))
}

/** An administrator invites someone who is not a member yet; one pending invitation per person and group. */
export async function createInvite(db: Kysely<Database>, caller: Caller, body: InviteCreate): Promise<InviteRow> {
  return refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        if (!(await groupsRepository(trx).find(body.group))) throw fieldError('group', invalidPk(body.group))
        if (!(await groupAccess(trx).administers(caller, body.group)))
          throw PermissionDenied("Only the group's administrators can invite people.")
        if (!(await activeUserExists(trx, body.user))) throw fieldError('user', invalidPk(body.user))
        if (await membershipsRepository(trx).findOf(body.group, body.user))
          throw fieldError('user', 'This user is already a member of the group.')
        const invite = await invitesRepository(trx).insert({ group_id: body.group, user_id: body.user, invited_by_id: caller.id })
        await notificationEvents.groupInvited(trx, invite)
        return invite
      }),
    {
      unique: { non_field_errors: ['This user already has a pending invitation to the group.'] },
      missing: (constraint): FieldErrors =>
        constraint.includes('group') ? { group: [invalidPk(body.group)] } : { user: [invalidPk(body.user)] },
    },
  )
}

export type InviteAnswer = 'accept' | 'decline' | 'revoke'
const STATUS_OF = { accept: 'accepted', decline: 'declined', revoke: 'revoked' } as const

/** The invitee accepts (and becomes a member) or declines; an administrator revokes. Only pending invitations move. */
export async function answerInvite(db: Kysely<Database>, id: number, answer: InviteAnswer): Promise<InviteRow> {
  return answerPending(db, {
    find: (trx) => invitesRepository(trx).find(id),
    check: (invite) => {
      if (answer === 'accept' && invite.user_id === null) {
        throw ValidationFailed({
          non_field_errors: ['This invitation went to an e-mail address: sign up with it and ask for a new invitation.'],
        })
      }
    },
    settle: (trx) => invitesRepository(trx).settle(id, STATUS_OF[answer]),
    notPending: NOT_PENDING,
    admits: answer === 'accept',
  })
}
