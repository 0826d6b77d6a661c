import { sql, type Selectable } from 'kysely'
import type { TagDelegations } from '../../db/database.ts'
import { column, orderingFieldsOf, type OrderingFields } from '../../db/ordering.ts'
import type { ListRequest, RowsPage } from '../../db/paging.ts'
import { iso, isoOrNull } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { delegationRows } from './delegation-rows.repository.ts'
import type { TagDelegation, TagDelegationListQuery, TagInfo } from './tag-delegations.schemas.ts'
import type { Db } from '../../db/types.ts'
import { INT4_MAX } from '../../core/integers.ts'
import type { ReducedUser } from '../users/users.schemas.ts'

export type TagDelegationRow = Selectable<TagDelegations>

export const TAG_DELEGATIONS_RESOURCE = 'tag_delegations'

export const TAG_DELEGATION_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'priority', 'created_at'], 'tag_delegations'),
  tag: column('tag_delegations.tag_id'),
}

export function toTagDelegation(
  row: TagDelegationRow,
  tags: Map<number, TagInfo>,
  users: Map<number, ReducedUser>,
  urls: UrlBuilder,
): TagDelegation {
  return {
    id: row.id,
    url: urls.detail(TAG_DELEGATIONS_RESOURCE, row.id),
    user: row.user_id,
    tag: row.tag_id,
    tag_info: tags.get(row.tag_id) ?? { id: row.tag_id, text: '' },
    trustee: row.trustee_id,
    trustee_info: row.trustee_id === null ? null : (users.get(row.trustee_id) ?? null),
    priority: row.priority,
    active: row.revoked_at === null,
    created_at: iso(row.created_at),
    revoked_at: isoOrNull(row.revoked_at),
  }
}

export function tagDelegationsRepository(db: Db) {
  const rows = delegationRows(db, {
    table: 'tag_delegations',
    subject: 'tag_id',
    ordering: TAG_DELEGATION_ORDERING,
    defaultOrdering: ['priority'],
  })
  return {
    ...rows,

    /** A page of the user's own delegations, by the listing's own filter names. */
    async page(userId: number, filters: TagDelegationListQuery, list: ListRequest): Promise<RowsPage<TagDelegationRow>> {
      return rows.page(userId, { history: filters.history, subject: filters.tag, trustee: filters.trustee }, list)
    },

    /** Every active delegation of the user, in their order. */
    async activeOf(userId: number): Promise<TagDelegationRow[]> {
      return db
        .selectFrom('tag_delegations')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .orderBy('priority')
        .orderBy('id')
        .execute()
    },

    /** After the user's last active delegation. */
    async nextPriority(userId: number): Promise<number> {
      const row = await db
        .selectFrom('tag_delegations')
        .select((eb) => eb.fn.max('priority').as('last'))
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      const last = row?.last
      return last === null || last === undefined ? 0 : Math.min(Number(last) + 1, INT4_MAX)
    },

    async insert(values: { user_id: number; tag_id: number; trustee_id: number | null; priority: number }): Promise<TagDelegationRow> {
      return db.insertInto('tag_delegations').values(values).returningAll().executeTakeFirstOrThrow()
    },

    async setPriority(id: number, priority: number): Promise<TagDelegationRow | undefined> {
      return db
        .updateTable('tag_delegations')
        .set({ priority })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst()
    },

    /** New priorities for several rows, in one statement. */
    async setPriorities(priorities: Map<number, number>): Promise<void> {
      if (priorities.size === 0) return
      const values = sql.join([...priorities].map(([id, priority]) => sql`(${id}::integer, ${priority}::integer)`))
      await sql`UPDATE tag_delegations AS td SET priority = v.priority FROM (VALUES ${values}) AS v(id, priority)
        WHERE td.id = v.id AND td.revoked_at IS NULL`.execute(db)
    },

    async tagExists(tagId: number): Promise<boolean> {
      return (await db.selectFrom('tags').select('id').where('id', '=', tagId).executeTakeFirst()) !== undefined
    },

    /** {id, text} of these tags, in one statement. */
    async tagInfos(ids: number[]): Promise<Map<number, TagInfo>> {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return new Map()
      const rows = await db.selectFrom('tags').select(['id', 'text']).where('id', 'in', unique).execute()
      return new Map(rows.map((row) => [row.id, { id: row.id, text: row.text }]))
    },

    /** How many active delegations by active accounts name the trustee, per tag; the most first. */
    async countsFor(trusteeId: number): Promise<{ tag_id: number; text: string; count: number }[]> {
      const rows = await db
        .selectFrom('tag_delegations')
        .innerJoin('users', 'users.id', 'tag_delegations.user_id')
        .innerJoin('tags', 'tags.id', 'tag_delegations.tag_id')
        .select(['tag_delegations.tag_id', 'tags.text', (eb) => eb.fn.countAll<number>().as('count')])
        .where('tag_delegations.trustee_id', '=', trusteeId)
        .where('tag_delegations.revoked_at', 'is', null)
        .where('users.is_active', '=', true)
        .where('users.is_deleted', '=', false)
        .groupBy(['tag_delegations.tag_id', 'tags.text'])
        .orderBy(sql`count(*)`, 'desc')
        .orderBy('tag_delegations.tag_id')
        .execute()
      return rows.map((row) => ({ tag_id: row.tag_id, text: row.text, count: Number(row.count) }))
    },
  }
}
