import type { Kysely, Selectable } from 'kysely'
import type { Database, FollowingUsers } from '../../db/database.ts'
import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { parseIdList } from '../../core/integers.ts'
import type { FollowingUser, FollowingUserListQuery } from './following-users.schemas.ts'

export type FollowingUserRow = Selectable<FollowingUsers>

export const FOLLOWING_USER_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at'], 'following_users'),
  user: column('following_users.user_id'),
  following: column('following_users.following_id'),
}

export function toFollowingUser(row: FollowingUserRow, urls: UrlBuilder): FollowingUser {
  return {
    id: row.id,
    url: urls.detail('following_users', row.id),
    user: row.user_id,
    following: row.following_id,
    created_at: iso(row.created_at),
  }
}

export function followingUsersRepository(db: Kysely<Database>) {
  return {
    filtered(filters: FollowingUserListQuery) {
      let query = db.selectFrom('following_users')
      if (filters.id !== undefined) query = query.where('following_users.id', '=', filters.id)
      if (filters.user !== undefined) query = query.where('following_users.user_id', '=', filters.user)
      if (filters.following !== undefined) query = query.where('following_users.following_id', '=', filters.following)
      if (filters.following__id__in !== undefined)
        query = query.where('following_users.following_id', 'in', [...parseIdList(filters.following__id__in), -1])
      return query
    },

    async page(filters: FollowingUserListQuery, list: ListRequest): Promise<RowsPage<FollowingUserRow>> {
      const ordering = orderingTerms(list.ordering, FOLLOWING_USER_ORDERING, ['-created_at'], column('following_users.id'))
      return pageOfRows(list, this.filtered(filters), (q) => q.selectAll('following_users'), ordering)
    },

    async find(id: number): Promise<FollowingUserRow | undefined> {
      return db.selectFrom('following_users').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async insert(userId: number, followingId: number): Promise<FollowingUserRow> {
      return db
        .insertInto('following_users')
        .values({ user_id: userId, following_id: followingId })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    async remove(id: number): Promise<FollowingUserRow | undefined> {
      return db.deleteFrom('following_users').where('id', '=', id).returningAll().executeTakeFirst()
    },

    /**
     * The follower's count_following_users and the followed user's count_followers follow every link. Both
     * rows are locked in id order first, so that two people following each other at once do not deadlock.
     */
    async count(row: FollowingUserRow, delta: 1 | -1): Promise<void> {
      await db.selectFrom('users').select('id').where('id', 'in', [row.user_id, row.following_id]).orderBy('id').forNoKeyUpdate().execute()
      await db
        .updateTable('users')
        .set((eb) => ({ count_following_users: eb('count_following_users', '+', delta) }))
        .where('id', '=', row.user_id)
        .execute()
      await db
        .updateTable('users')
        .set((eb) => ({ count_followers: eb('count_followers', '+', delta) }))
        .where('id', '=', row.following_id)
        .execute()
    },
  }
}
