import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, Users } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { parseIdList } from '../../core/integers.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { escapeLike } from '../../db/text-search.ts'
import { readCompareCheck, type CompareCheck } from '../compare/compare-check.ts'
import type { UserListQuery } from './users.schemas.ts'

export type UserRow = Selectable<Users>

export const USER_ORDERING = orderingFieldsOf(
  [
    'id',
    'username',
    'first_name',
    'last_name',
    'created_at',
    'modified_at',
    'last_answer_time',
    'karma',
    'count_votes',
    'count_question_votes',
    'count_followers',
    'count_comments',
    'count_questions',
  ],
  'users',
)

/**
 * The ordering fields as the viewer may sort by them: the answer counters and time count public answers only,
 * except on the viewer's own row and for staff (as `toFullUser` shows them).
 */
export function userOrdering(viewer: Caller | null): OrderingFields {
  if (viewer?.isStaff) return USER_ORDERING
  const seen = (name: string) =>
    viewer
      ? sql`CASE WHEN users.id = ${viewer.id} THEN ${sql.ref(`users.${name}`)} ELSE ${sql.ref(`users.public_${name}`)} END`
      : sql.ref(`users.public_${name}`)
  return {
    ...USER_ORDERING,
    last_answer_time: seen('last_answer_time') as OrderingFields[string],
    count_votes: seen('count_votes') as OrderingFields[string],
    count_question_votes: seen('count_question_votes') as OrderingFields[string],
  }
}

export function usersRepository(db: Kysely<Database>) {
  return {
    /** Locks the user row until the transaction ends (NO KEY UPDATE: rows referencing the user can still be written). */
    async lock(id: number): Promise<void> {
      await db.selectFrom('users').select('id').where('id', '=', id).forNoKeyUpdate().execute()
    },

    /** A page of users as the viewer may sort them; `compare_check` narrows and orders by kept comparisons. */
    async page(filters: UserListQuery, viewer: Caller | null, list: ListRequest): Promise<RowsPage<UserRow>> {
      const compareCheck = readCompareCheck(filters.compare_check, viewer)
      const ordering = orderingTerms(list.ordering, userOrdering(viewer), ['id'], column('users.id'))
      if (compareCheck) ordering.unshift(compareCheck.order)
      return pageOfRows<UserRow>(list, this.filtered(filters, compareCheck), (q) => q.selectAll('users'), ordering)
    },

    /** One user as listings show them (deactivated accounts are not found). */
    async listed(id: number): Promise<UserRow | undefined> {
      return this.filtered({ id }).selectAll('users').executeTakeFirst()
    },

    /** Deactivated accounts leave listings; deleted ones stay, anonymised (their answers still count). */
    filtered(filters: UserListQuery, compareCheck: CompareCheck | null = null) {
      let query = db.selectFrom('users').where((eb) => eb.or([eb('users.is_active', '=', true), eb('users.is_deleted', '=', true)]))
      if (compareCheck) {
        // One kept comparison per (user, other): the join adds no rows, and lets the listing order by its figures.
        const { userId, minimum, visible } = compareCheck
        query = query
          .innerJoin('user_compares', (join) =>
            join
              .onRef('user_compares.other_id', '=', 'users.id')
              .on('user_compares.user_id', '=', userId)
              .on('user_compares.questions_counted', '>=', minimum),
          )
          .where((eb) => eb.lit(visible))
      }
      if (filters.id !== undefined) query = query.where('users.id', '=', filters.id)
      if (filters.id__in !== undefined) {
        const ids = parseIdList(filters.id__in)
        query = ids.length ? query.where('users.id', 'in', ids) : query.where('users.id', '=', -1)
      }
      if (filters.username) query = query.where('users.username', '=', filters.username)
      if (filters.username__iexact)
        query = query.where((eb) => eb(eb.fn('lower', ['users.username']), '=', filters.username__iexact!.toLowerCase()))
      if (filters.politician__type) {
        const type = filters.politician__type
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('politicians')
              .select('politicians.id')
              .whereRef('politicians.id', '=', 'users.politician_id')
              .where('politicians.type', '=', type),
          ),
        )
      }
      if (filters.locations__geo !== undefined) {
        const geo = filters.locations__geo
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('user_geos')
              .select('user_geos.id')
              .whereRef('user_geos.user_id', '=', 'users.id')
              .where('user_geos.area_id', '=', geo),
          ),
        )
      }
      if (filters.following !== undefined) {
        // Who follows that user: following_users_following_idx finds them, or following_users_unique probes each user.
        const followed = filters.following
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('following_users')
              .select('following_users.id')
              .whereRef('following_users.user_id', '=', 'users.id')
              .where('following_users.following_id', '=', followed),
          ),
        )
      }
      if (filters.search) {
        const pattern = `%${escapeLike(filters.search)}%`
        query = query.where((eb) =>
          eb.or([
            eb('users.username', 'ilike', pattern),
            eb('users.first_name', 'ilike', pattern),
            eb('users.last_name', 'ilike', pattern),
          ]),
        )
      }
      return query
    },

    /** What a user summary shows, and the e-mail address, of these users. */
    async summaryRows(ids: number[]) {
      if (ids.length === 0) return []
      return db.selectFrom('users').select(['id', 'username', 'first_name', 'last_name', 'photo', 'email']).where('id', 'in', ids).execute()
    },

    /** Whether the id names someone who can take part: an active account that was not deleted. */
    async activeExists(id: number): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where('id', '=', id)
        .where('is_active', '=', true)
        .where('is_deleted', '=', false)
        .executeTakeFirst()
      return row !== undefined
    },

    async findByIds(ids: number[]): Promise<UserRow[]> {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return []
      return db.selectFrom('users').selectAll().where('id', 'in', unique).execute()
    },

    async locationIds(userIds: number[]): Promise<Map<number, number[]>> {
      const out = new Map<number, number[]>()
      if (userIds.length === 0) return out
      const rows = await db
        .selectFrom('user_geos')
        .select(['id', 'user_id'])
        .where('user_id', 'in', [...new Set(userIds)])
        .orderBy('id')
        .execute()
      for (const row of rows) out.set(row.user_id, [...(out.get(row.user_id) ?? []), row.id])
      return out
    },

    /** The caller's following_users links to any of these users. */
    async followLinks(callerId: number, userIds: number[]) {
      if (userIds.length === 0) return []
      return db
        .selectFrom('following_users')
        .select(['id', 'following_id', 'created_at'])
        .where('user_id', '=', callerId)
        .where('following_id', 'in', [...new Set(userIds)])
        .execute()
    },
  }
}
