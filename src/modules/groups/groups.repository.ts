import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, Groups } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { escapeLike, matchingEveryTerm } from '../../db/text-search.ts'
import { parseIdList } from '../../core/integers.ts'
import type { GroupListQuery, JoinPolicy } from './groups.schemas.ts'

export type GroupRow = Selectable<Groups>

export const GROUP_ORDERING = orderingFieldsOf(['id', 'name', 'slug', 'member_count', 'created_at', 'modified_at'], 'groups')

export interface GroupValues {
  name?: string
  slug?: string
  description?: string
  image?: string | null
  join_policy?: JoinPolicy
  owner_id?: number
}

export function groupsRepository(db: Kysely<Database>) {
  return {
    filtered(filters: GroupListQuery) {
      let query = db.selectFrom('groups')
      if (filters.id !== undefined) query = query.where('groups.id', '=', filters.id)
      if (filters.id__in !== undefined) query = query.where('groups.id', 'in', [...parseIdList(filters.id__in), -1])
      if (filters.slug !== undefined) query = query.where('groups.slug', '=', filters.slug)
      if (filters.owner !== undefined) query = query.where('groups.owner_id', '=', filters.owner)
      if (filters.join_policy !== undefined) query = query.where('groups.join_policy', '=', filters.join_policy)
      if (filters.member !== undefined) {
        const member = filters.member
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('group_memberships as gm')
              .select('gm.id')
              .whereRef('gm.group_id', '=', 'groups.id')
              .where('gm.user_id', '=', member),
          ),
        )
      }
      const searching = filters.search ? matchingEveryTerm(filters.search, ['groups.name', 'groups.description']) : null
      if (searching) query = query.where(searching)
      return query
    },

    async page(filters: GroupListQuery, list: ListRequest): Promise<RowsPage<GroupRow>> {
      const ordering = orderingTerms(list.ordering, GROUP_ORDERING, ['name'], column('groups.id'))
      return pageOfRows(list, this.filtered(filters), (q) => q.selectAll('groups'), ordering)
    },

    async find(id: number): Promise<GroupRow | undefined> {
      return db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /**
     * Locks the group for the rest of the transaction, so that a membership never slips past the counters:
     * `members` for a change of its members (which updates member_count anyway, so it is taken up front
     * rather than upgraded from a shared lock, which deadlocks), `group` for deleting it or handing it
     * over. Undefined when the group is gone.
     */
    async lock(id: number, mode: 'members' | 'group'): Promise<GroupRow | undefined> {
      const query = db.selectFrom('groups').selectAll().where('id', '=', id)
      return (mode === 'members' ? query.forNoKeyUpdate() : query.forUpdate()).executeTakeFirst()
    },

    /** Whether the account exists at all (a new owner who is not a member is refused either way, with a different message). */
    async userExists(id: number): Promise<boolean> {
      return (await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    },

    async slugsStartingWith(base: string): Promise<string[]> {
      const rows = await db
        .selectFrom('groups')
        .select('slug')
        .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${escapeLike(base)}-%`)]))
        .execute()
      return rows.map((row) => row.slug)
    },

    async insert(values: GroupValues & { name: string; slug: string; owner_id: number }): Promise<GroupRow> {
      return db.insertInto('groups').values(values).returningAll().executeTakeFirstOrThrow()
    },

    async update(id: number, values: GroupValues): Promise<void> {
      await db
        .updateTable('groups')
        .set({ ...values, modified_at: sql`now()` })
        .where('id', '=', id)
        .execute()
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('groups').where('id', '=', id).execute()
    },

    /** Active questions of each group that anyone can see: what /api/questions/?group= lists. */
    async questionCounts(groupIds: number[]): Promise<Map<number, number>> {
      if (groupIds.length === 0) return new Map()
      const rows = await db
        .selectFrom('group_question_connections as gqc')
        .innerJoin('questions', 'questions.id', 'gqc.question_id')
        .select(['gqc.group_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('gqc.group_id', 'in', [...new Set(groupIds)])
        .where('gqc.active', '=', true)
        .where('questions.publish', '=', true)
        .groupBy('gqc.group_id')
        .execute()
      return new Map(rows.map((row) => [row.group_id, Number(row.n)]))
    },

    /** The user's pending join requests among these groups. */
    async pendingRequestsOf(userId: number, groupIds: number[]) {
      if (groupIds.length === 0) return []
      return db
        .selectFrom('group_join_requests')
        .select(['id', 'group_id', 'status', 'created_at'])
        .where('user_id', '=', userId)
        .where('group_id', 'in', [...new Set(groupIds)])
        .where('status', '=', 'pending')
        .execute()
    },
  }
}
