import { sql, type Kysely, type Selectable } from 'kysely'
import type { Caller } from '../../../core/caller.ts'
import type { Database, GroupInvites } from '../../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import { groupAccess } from '../group-access.repository.ts'
import type { PendingListQuery } from '../pending-actions.schemas.ts'
import type { InviteStatus } from './invites.schemas.ts'

export type InviteRow = Selectable<GroupInvites>

export const INVITE_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'status', 'created_at', 'modified_at'], 'group_invites'),
  group: column('group_invites.group_id'),
  user: column('group_invites.user_id'),
}

export function invitesRepository(db: Kysely<Database>) {
  return {
    /** The invitations the caller may see: their own and those of the groups they administer; staff see all. */
    filtered(filters: PendingListQuery, caller: Caller) {
      let query = db.selectFrom('group_invites')
      if (!caller.isStaff) {
        const administered = groupAccess(db).administeredBy(caller.id)
        query = query.where((eb) => eb.or([eb('group_invites.user_id', '=', caller.id), eb('group_invites.group_id', 'in', administered)]))
      }
      if (filters.id !== undefined) query = query.where('group_invites.id', '=', filters.id)
      if (filters.group !== undefined) query = query.where('group_invites.group_id', '=', filters.group)
      if (filters.user !== undefined) query = query.where('group_invites.user_id', '=', filters.user)
      if (filters.status !== undefined) query = query.where('group_invites.status', '=', filters.status)
      return query
    },

    async page(filters: PendingListQuery, caller: Caller, list: ListRequest): Promise<RowsPage<InviteRow>> {
      const ordering = orderingTerms(list.ordering, INVITE_ORDERING, ['-created_at'], column('group_invites.id'))
      return pageOfRows(list, this.filtered(filters, caller), (q) => q.selectAll('group_invites'), ordering)
    },

    async find(id: number): Promise<InviteRow | undefined> {
      return db.selectFrom('group_invites').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async pendingOf(groupId: number, userId: number): Promise<InviteRow | undefined> {
      return db
        .selectFrom('group_invites')
        .selectAll()
        .where('group_id', '=', groupId)
        .where('user_id', '=', userId)
        .where('status', '=', 'pending')
        .executeTakeFirst()
    },

    async insert(values: { group_id: number; user_id: number; invited_by_id: number }): Promise<InviteRow> {
      return db.insertInto('group_invites').values(values).returningAll().executeTakeFirstOrThrow()
    },

    /** Moves a pending invitation on; answers undefined when it was no longer pending (a concurrent answer won). */
    async settle(id: number, status: Exclude<InviteStatus, 'pending'>): Promise<InviteRow | undefined> {
      return db
        .updateTable('group_invites')
        .set({ status, modified_at: sql`now()` })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst()
    },
  }
}
