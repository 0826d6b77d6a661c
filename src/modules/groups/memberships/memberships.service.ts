import type { Kysely } from 'kysely'
import type { Caller } from '../../../core/caller.ts'
import type { Database } from '../../../db/database.ts'
import { NotFound, PermissionDenied, ValidationFailed } from '../../../core/errors.ts'
import { groupAccess } from '../group-access.repository.ts'
import { groupsRepository } from '../groups.repository.ts'
import { loadUserSummaries, summaryOf } from '../../users/user-summaries.ts'
import { toMembership, visibleEmail } from './memberships.mapper.ts'
import { membershipsRepository, type MembershipRow } from './memberships.repository.ts'
import { ROLES, type Membership, type MembershipPatch, type Role } from './memberships.schemas.ts'
import type { ViewContext } from '../../../core/view-context.ts'

export const OWNER_STAYS = "The group's owner cannot leave it; hand the group over to another member first."

/**
 * Makes the user a member (once) and counts it, then settles their pending invitation and join request.
 * Run it inside the transaction of the change that admits them.
 */
export async function addMember(
  trx: Kysely<Database>,
  groupId: number,
  userId: number,
  values: { role?: Role; share_email?: boolean } = {},
): Promise<{ membership: MembershipRow; created: boolean }> {
  if (!(await groupsRepository(trx).lock(groupId, 'members'))) throw NotFound()
  const repository = membershipsRepository(trx)
  const inserted = await repository.insert({ group_id: groupId, user_id: userId, ...values })
  if (inserted) await repository.count(groupId, userId, 1)
  await repository.settlePending(groupId, userId)
  if (inserted) return { membership: inserted, created: true }
  return { membership: (await repository.findOf(groupId, userId))!, created: false }
}

/** Ends a membership and uncounts it; the owner's own membership stays. Answers whether it was removed. */
export async function removeMember(trx: Kysely<Database>, membership: MembershipRow): Promise<boolean> {
  const group = await groupsRepository(trx).lock(membership.group_id, 'members')
  if (group?.owner_id === membership.user_id) throw ValidationFailed({ non_field_errors: [OWNER_STAYS] })
  const removed = await membershipsRepository(trx).remove(membership.id)
  if (removed) await membershipsRepository(trx).count(removed.group_id, removed.user_id, -1)
  return removed !== undefined
}

export async function deleteMembership(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const membership = await membershipsRepository(trx).find(id)
    if (!membership || !(await removeMember(trx, membership))) throw NotFound()
  })
}

/** Administrators change roles; the member changes share_email. The owner stays an administrator. */
export async function updateMembership(db: Kysely<Database>, caller: Caller, id: number, patch: MembershipPatch): Promise<MembershipRow> {
  const repository = membershipsRepository(db)
  const membership = await repository.find(id)
  if (!membership) throw NotFound()
  const changes: { role?: Role; share_email?: boolean } = {}
  if (patch.role !== undefined && patch.role !== membership.role) {
    if (!(ROLES as readonly string[]).includes(patch.role)) throw ValidationFailed({ role: [`"${patch.role}" is not a valid choice.`] })
    if (!(await groupAccess(db).administers(caller, membership.group_id)))
      throw PermissionDenied("Only the group's administrators can change roles.")
    const group = await groupsRepository(db).find(membership.group_id)
    if (group?.owner_id === membership.user_id) throw ValidationFailed({ role: ["The group's owner stays an administrator."] })
    changes.role = patch.role as Role
  }
  if (patch.share_email !== undefined && patch.share_email !== membership.share_email) {
    if (caller.id !== membership.user_id && !caller.isStaff) throw PermissionDenied('Only the member can change share_email.')
    changes.share_email = patch.share_email
  }
  if (Object.keys(changes).length === 0) return membership
  return repository.update(id, changes)
}

/** Memberships for a page of rows: the members and the groups the caller administers, one statement each. */
export async function membershipsFromRows(context: ViewContext, rows: MembershipRow[]): Promise<Membership[]> {
  if (rows.length === 0) return []
  const callerId = context.caller?.id ?? null
  const [users, administered] = await Promise.all([
    loadUserSummaries(
      context,
      rows.map((row) => row.user_id),
    ),
    groupAccess(context.db).administered(
      callerId,
      rows.filter((row) => row.share_email).map((row) => row.group_id),
    ),
  ])
  return rows.map((row) => {
    const user = users.get(row.user_id)
    const viewer = { id: callerId, isStaff: context.caller?.isStaff ?? false, administers: administered.has(row.group_id) }
    return toMembership(row, summaryOf(user), visibleEmail(row, user?.email ?? null, viewer), context.urls)
  })
}
