import { sql, type Kysely, type Selectable } from 'kysely'
import type { Caller } from '../../../core/caller.ts'
import type { Database, GroupJoinRequests } from '../../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import { groupAccess } from '../group-access.repository.ts'
import type { PendingListQuery } from '../pending-actions.schemas.ts'
import type { JoinRequestStatus } from './join-requests.schemas.ts'

export type JoinRequestRow = Selectable<GroupJoinRequests>

export const JOIN_REQUEST_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'status', 'created_at', 'modified_at'], 'group_join_requests'),
  group: column('group_join_requests.group_id'),
  user: column('group_join_requests.user_id'),
}

export function joinRequestsRepository(db: Kysely<Database>) {
  return {
    /** The requests the caller may see: their own and those to the groups they administer; staff see all. */
    filtered(filters: PendingListQuery, caller: Caller) {
      let query = db.selectFrom('group_join_requests')
      if (!caller.isStaff) {
        const administered = groupAccess(db).administeredBy(caller.id)
        query = query.where((eb) =>
          eb.or([eb('group_join_requests.user_id', '=', caller.id), eb('group_join_requests.group_id', 'in', administered)]),
        )
      }
      if (filters.id !== undefined) query = query.where('group_join_requests.id', '=', filters.id)
      if (filters.group !== undefined) query = query.where('group_join_requests.group_id', '=', filters.group)
      if (filters.user !== undefined) query = query.where('group_join_requests.user_id', '=', filters.user)
      if (filters.status !== undefined) query = query.where('group_join_requests.status', '=', filters.status)
      return query
    },

    async page(filters: PendingListQuery, caller: Caller, list: ListRequest): Promise<RowsPage<JoinRequestRow>> {
      const ordering = orderingTerms(list.ordering, JOIN_REQUEST_ORDERING, ['-created_at'], column('group_join_requests.id'))
      return pageOfRows(list, this.filtered(filters, caller), (q) => q.selectAll('group_join_requests'), ordering)
    },

    async find(id: number): Promise<JoinRequestRow | undefined> {
      return db.selectFrom('group_join_requests').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** A new pending request, unless one is pending already (the partial unique index decides). */
    async insertPending(values: { group_id: number; user_id: number; message?: string }): Promise<JoinRequestRow | undefined> {
      return db
        .insertInto('group_join_requests')
        .values(values)
        .onConflict((oc) => oc.columns(['group_id', 'user_id']).where('status', '=', 'pending').doNothing())
        .returningAll()
        .executeTakeFirst()
    },

    async insert(values: { group_id: number; user_id: number; message?: string }): Promise<JoinRequestRow> {
      return db.insertInto('group_join_requests').values(values).returningAll().executeTakeFirstOrThrow()
    },

    /** Moves a pending request on; answers undefined when it was no longer pending. */
    async settle(id: number, status: Exclude<JoinRequestStatus, 'pending'>): Promise<JoinRequestRow | undefined> {
      return db
        .updateTable('group_join_requests')
        .set({ status, modified_at: sql`now()` })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst()
    },

    async withdrawPending(groupId: number, userId: number): Promise<void> {
      await db
        .updateTable('group_join_requests')
        .set({ status: 'withdrawn', modified_at: sql`now()` })
        .where('group_id', '=', groupId)
        .where('user_id', '=', userId)
        .where('status', '=', 'pending')
        .execute()
    },
  }
}
