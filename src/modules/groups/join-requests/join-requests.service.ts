import type { Kysely } from 'kysely'
import type { Caller } from '../../../core/caller.ts'
import type { Database } from '../../../db/database.ts'
import { fieldError, invalidPk } from '../../../core/errors.ts'
import { iso } from '../../../core/time.ts'
import { refusingViolations } from '../../../core/constraint-errors.ts'
import { groupsRepository } from '../groups.repository.ts'
import { membershipsRepository } from '../memberships/memberships.repository.ts'
import { answerPending } from '../pending-actions.service.ts'
import { loadUserSummaries, summaryOf } from '../../users/user-summaries.ts'
import { joinRequestsRepository, type JoinRequestRow } from './join-requests.repository.ts'
import type { JoinRequest, JoinRequestCreate } from './join-requests.schemas.ts'
import { notificationEvents } from '../../../engines/notifications/notification-events.ts'
import type { ViewContext } from '../../../core/view-context.ts'

export async function joinRequestsFromRows(context: ViewContext, rows: JoinRequestRow[]): Promise<JoinRequest[]> {
  const users = await loadUserSummaries(
    context,
    rows.map((row) => row.user_id),
  )
  return rows.map((row) => ({
    id: row.id,
    url: context.urls.detail('group_join_requests', row.id),
    group: row.group_id,
    user: row.user_id,
    user_info: summaryOf(users.get(row.user_id)),
    message: row.message,
    status: row.status,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }))
}

/** The caller asks to join a group that takes requests; one pending request per person and group. */
export async function createJoinRequest(db: Kysely<Database>, caller: Caller, body: JoinRequestCreate): Promise<JoinRequestRow> {
  return refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        const group = await groupsRepository(trx).find(body.group)
        if (!group) throw fieldError('group', invalidPk(body.group))
        if (await membershipsRepository(trx).findOf(body.group, caller.id))
          throw fieldError('group', 'You are a member of this group already.')
        if (group.join_policy === 'open') throw fieldError('group', 'Anyone may join this group: join it directly.')
        if (group.join_policy === 'invite') throw fieldError('group', 'This group can only be joined by invitation.')
        return joinRequestsRepository(trx).insert({ group_id: body.group, user_id: caller.id, message: body.message?.trim() ?? '' })
      }),
    {
      unique: { non_field_errors: ['You already have a pending request to join this group.'] },
      missing: () => ({ group: [invalidPk(body.group)] }),
    },
  )
}

export type JoinRequestAnswer = 'accept' | 'reject' | 'withdraw'
const STATUS_OF = { accept: 'accepted', reject: 'declined', withdraw: 'withdrawn' } as const

/** An administrator accepts (the requester becomes a member) or rejects; the requester withdraws. Only pending requests move. */
export async function answerJoinRequest(
  db: Kysely<Database>,
  id: number,
  answer: JoinRequestAnswer,
  answeredBy: number,
): Promise<JoinRequestRow> {
  return answerPending(db, {
    find: (trx) => joinRequestsRepository(trx).find(id),
    settle: (trx) => joinRequestsRepository(trx).settle(id, STATUS_OF[answer]),
    notPending: 'This request is no longer pending.',
    admits: answer === 'accept',
    after: async (trx, settled) => {
      if (answer !== 'withdraw') await notificationEvents.joinRequestDecided(trx, settled, answeredBy, STATUS_OF[answer])
    },
  })
}
