import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, Friendships } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { FriendshipListQuery } from './friends.schemas.ts'

export type FriendshipRow = Selectable<Friendships>

export const FRIENDSHIP_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at', 'accepted_at'], 'friendships'),
  user: column('friendships.user_id'),
  friend: column('friendships.friend_id'),
}

/** The two people of a friendship, as their user rows are locked: lower id first. */
export interface Party {
  id: number
  is_active: boolean
  is_deleted: boolean
}

export function friendsRepository(db: Kysely<Database>) {
  return {
    /**
     * Friendships of `subject`, in either direction. Someone else's list shows accepted friendships only;
     * the caller's own also shows pending requests, both those they made and those made to them.
     */
    filtered(filters: FriendshipListQuery, callerId: number) {
      const subject = filters.user ?? callerId
      let query = db
        .selectFrom('friendships')
        .where((eb) => eb.or([eb('friendships.user_id', '=', subject), eb('friendships.friend_id', '=', subject)]))
      if (subject !== callerId) query = query.where('friendships.accepted_at', 'is not', null)
      if (filters.id !== undefined) query = query.where('friendships.id', '=', filters.id)
      if (filters.status === 'pending') query = query.where('friendships.accepted_at', 'is', null)
      if (filters.status === 'accepted') query = query.where('friendships.accepted_at', 'is not', null)
      if (filters.direction === 'outgoing') query = query.where('friendships.user_id', '=', subject)
      if (filters.direction === 'incoming') query = query.where('friendships.friend_id', '=', subject)
      return query
    },

    async page(filters: FriendshipListQuery, callerId: number, list: ListRequest): Promise<RowsPage<FriendshipRow>> {
      const ordering = orderingTerms(list.ordering, FRIENDSHIP_ORDERING, ['-created_at'], column('friendships.id'))
      return pageOfRows(list, this.filtered(filters, callerId), (q) => q.selectAll('friendships'), ordering)
    },

    async find(id: number): Promise<FriendshipRow | undefined> {
      return db.selectFrom('friendships').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** The friendship between two people, whichever of them asked. */
    async between(a: number, b: number): Promise<FriendshipRow | undefined> {
      return db
        .selectFrom('friendships')
        .selectAll()
        .where((eb) =>
          eb.or([eb.and([eb('user_id', '=', a), eb('friend_id', '=', b)]), eb.and([eb('user_id', '=', b), eb('friend_id', '=', a)])]),
        )
        .executeTakeFirst()
    },

    /**
     * Locks both people's user rows, lower id first. Every write to a pair's friendship takes these locks
     * before touching the friendship, so writes to one pair run one at a time (two people asking each other
     * at once cannot make two rows) and writes to different pairs never wait on each other in a cycle.
     */
    async lockParties(a: number, b: number): Promise<Party[]> {
      return db
        .selectFrom('users')
        .select(['id', 'is_active', 'is_deleted'])
        .where('id', 'in', [a, b])
        .orderBy('id')
        .forNoKeyUpdate()
        .execute()
    },

    async insert(userId: number, friendId: number): Promise<FriendshipRow> {
      return db.insertInto('friendships').values({ user_id: userId, friend_id: friendId }).returningAll().executeTakeFirstOrThrow()
    },

    /** Accepts a pending request; undefined when it is not pending (accepted already, or gone). */
    async accept(id: number): Promise<FriendshipRow | undefined> {
      return db
        .updateTable('friendships')
        .set({ accepted_at: sql`now()` })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .returningAll()
        .executeTakeFirst()
    },

    /** Deletes a pending request; undefined when it is not pending. */
    async removePending(id: number): Promise<FriendshipRow | undefined> {
      return db.deleteFrom('friendships').where('id', '=', id).where('accepted_at', 'is', null).returningAll().executeTakeFirst()
    },

    /** The other person of each of someone's friendships, pending or accepted. */
    async partiesOf(userId: number): Promise<number[]> {
      const rows = await db
        .selectFrom('friendships')
        .select(sql<number>`CASE WHEN user_id = ${userId} THEN friend_id ELSE user_id END`.as('other'))
        .where((eb) => eb.or([eb('user_id', '=', userId), eb('friend_id', '=', userId)]))
        .execute()
      return rows.map((row) => Number(row.other))
    },

    /** Locks the users' rows, lower id first, as lockParties does for a pair. */
    async lockUsers(ids: number[]): Promise<void> {
      if (ids.length === 0) return
      await db.selectFrom('users').select('id').where('id', 'in', ids).orderBy('id').forNoKeyUpdate().execute()
    },

    /**
     * Deletes all of someone's friendships and takes each accepted one off both people's count_friends. Called
     * with every party's row locked (lockUsers).
     */
    async removeAllOf(userId: number): Promise<void> {
      await sql`WITH gone AS (
          DELETE FROM friendships WHERE user_id = ${userId} OR friend_id = ${userId} RETURNING user_id, friend_id, accepted_at
        ), counted AS (
          SELECT party, count(*)::int AS n FROM gone CROSS JOIN LATERAL (VALUES (gone.user_id), (gone.friend_id)) AS p(party)
          WHERE gone.accepted_at IS NOT NULL GROUP BY party
        )
        UPDATE users SET count_friends = users.count_friends - counted.n FROM counted WHERE users.id = counted.party`.execute(db)
    },

    async remove(id: number): Promise<FriendshipRow | undefined> {
      return db.deleteFrom('friendships').where('id', '=', id).returningAll().executeTakeFirst()
    },

    /**
     * count_friends of both people, as recomputeStatistics counts it: each accepted friendship counts once for
     * each of its two people. Called with their rows locked already (lockParties).
     */
    async countFriends(row: FriendshipRow, delta: 1 | -1): Promise<void> {
      await db
        .updateTable('users')
        .set((eb) => ({ count_friends: eb('count_friends', '+', delta) }))
        .where('id', 'in', [row.user_id, row.friend_id])
        .execute()
    },
  }
}
