import { sql, type Selectable } from 'kysely'
import type { TagDelegations } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { iso, isoOrNull } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { historyOn } from './delegation-rules.ts'
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
  return {
    /** A page of the user's own delegations. */
    async page(userId: number, filters: TagDelegationListQuery, list: ListRequest): Promise<RowsPage<TagDelegationRow>> {
      const ordering = orderingTerms(list.ordering, TAG_DELEGATION_ORDERING, ['priority'], column('tag_delegations.id'))
      return pageOfRows<TagDelegationRow>(list, this.filtered(userId, filters), (q) => q.selectAll('tag_delegations'), ordering)
    },

    /** The user's own delegations: the active ones, or with history every one. */
    filtered(userId: number, filters: TagDelegationListQuery) {
      let query = db.selectFrom('tag_delegations').where('tag_delegations.user_id', '=', userId)
      if (!historyOn(filters.history)) query = query.where('tag_delegations.revoked_at', 'is', null)
      if (filters.tag !== undefined) query = query.where('tag_delegations.tag_id', '=', filters.tag)
      if (filters.trustee !== undefined) query = query.where('tag_delegations.trustee_id', '=', filters.trustee)
      return query
    },

    async find(id: number): Promise<TagDelegationRow | undefined> {
      return db.selectFrom('tag_delegations').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** The user's active delegation on a tag, if any. */
    async active(userId: number, tagId: number): Promise<TagDelegationRow | undefined> {
      return db
        .selectFrom('tag_delegations')
        .selectAll()
        .where('user_id', '=', userId)
        .where('tag_id', '=', tagId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
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

    /** Revokes an active row; undefined when it was revoked already. */
    async revoke(id: number): Promise<TagDelegationRow | undefined> {
      return db
        .updateTable('tag_delegations')
        .set({ revoked_at: sql`now()` })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst()
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
