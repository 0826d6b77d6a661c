import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, GroupMemberships } from '../../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import type { MembershipListQuery } from './memberships.schemas.ts'

export type MembershipRow = Selectable<GroupMemberships>

export const MEMBERSHIP_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at', 'role'], 'group_memberships'),
  group: column('group_memberships.group_id'),
  user: column('group_memberships.user_id'),
}

export function membershipsRepository(db: Kysely<Database>) {
  return {
    filtered(filters: MembershipListQuery) {
      let query = db.selectFrom('group_memberships')
      if (filters.id !== undefined) query = query.where('group_memberships.id', '=', filters.id)
      if (filters.group !== undefined) query = query.where('group_memberships.group_id', '=', filters.group)
      if (filters.user !== undefined) query = query.where('group_memberships.user_id', '=', filters.user)
      if (filters.role !== undefined) query = query.where('group_memberships.role', '=', filters.role)
      return query
    },

    async page(filters: MembershipListQuery, list: ListRequest): Promise<RowsPage<MembershipRow>> {
      const ordering = orderingTerms(list.ordering, MEMBERSHIP_ORDERING, ['created_at'], column('group_memberships.id'))
      return pageOfRows(list, this.filtered(filters), (q) => q.selectAll('group_memberships'), ordering)
    },

    async find(id: number): Promise<MembershipRow | undefined> {
      return db.selectFrom('group_memberships').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async findOf(groupId: number, userId: number): Promise<MembershipRow | undefined> {
      return db.selectFrom('group_memberships').selectAll().where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst()
    },

    /** The user's memberships among these groups. */
    async ofUser(userId: number, groupIds: number[]): Promise<MembershipRow[]> {
      if (groupIds.length === 0) return []
      return db
        .selectFrom('group_memberships')
        .selectAll()
        .where('user_id', '=', userId)
        .where('group_id', 'in', [...new Set(groupIds)])
        .execute()
    },

    /** Inserts unless the user is a member already; answers the new row, or undefined. */
    async insert(values: {
      group_id: number
      user_id: number
      role?: 'member' | 'admin'
      share_email?: boolean
    }): Promise<MembershipRow | undefined> {
      return db
        .insertInto('group_memberships')
        .values(values)
        .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
        .returningAll()
        .executeTakeFirst()
    },

    async update(id: number, values: { role?: 'member' | 'admin'; share_email?: boolean }): Promise<MembershipRow> {
      return db.updateTable('group_memberships').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
    },

    /** Deletes the row; answers it when this statement removed it (a concurrent leave may have won). */
    async remove(id: number): Promise<MembershipRow | undefined> {
      return db.deleteFrom('group_memberships').where('id', '=', id).returningAll().executeTakeFirst()
    },

    /** The group's member_count and the user's count_group_memberships follow every membership change. */
    async count(groupId: number, userId: number, delta: 1 | -1): Promise<void> {
      await db
        .updateTable('groups')
        .set((eb) => ({ member_count: eb('member_count', '+', delta) }))
        .where('id', '=', groupId)
        .execute()
      await db
        .updateTable('users')
        .set((eb) => ({ count_group_memberships: eb('count_group_memberships', '+', delta) }))
        .where('id', '=', userId)
        .execute()
    },

    /** Before a group goes (its memberships cascade): each member counts one membership fewer. */
    async uncountAllOf(groupId: number): Promise<void> {
      const members = db.selectFrom('group_memberships').select('user_id').where('group_id', '=', groupId)
      // In id order, as every other change of several users' counters, so that they cannot deadlock.
      await db.selectFrom('users').select('id').where('id', 'in', members).orderBy('id').forNoKeyUpdate().execute()
      await db
        .updateTable('users')
        .set((eb) => ({ count_group_memberships: eb('count_group_memberships', '-', 1) }))
        .where('id', 'in', members)
        .execute()
    },

    /** Once someone is a member, their pending invitation and join request to the group are settled. */
    async settlePending(groupId: number, userId: number): Promise<void> {
      await db
        .updateTable('group_invites')
        .set({ status: 'accepted', modified_at: sql`now()` })
        .where('group_id', '=', groupId)
        .where('user_id', '=', userId)
        .where('status', '=', 'pending')
        .execute()
      await db
        .updateTable('group_join_requests')
        .set({ status: 'accepted', modified_at: sql`now()` })
        .where('group_id', '=', groupId)
        .where('user_id', '=', userId)
        .where('status', '=', 'pending')
        .execute()
    },
  }
}

export type MembershipsRepository = ReturnType<typeof membershipsRepository>
