import type { Kysely, Selectable } from 'kysely'
import type { Database, FollowingTags } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { FollowingTag, FollowingTagListQuery } from './following-tags.schemas.ts'

export type FollowingTagRow = Selectable<FollowingTags>

export const FOLLOWING_TAG_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at'], 'following_tags'),
  user: column('following_tags.user_id'),
  tag: column('following_tags.tag_id'),
}

export function toFollowingTag(row: FollowingTagRow, urls: UrlBuilder): FollowingTag {
  return { id: row.id, url: urls.detail('following_tags', row.id), user: row.user_id, tag: row.tag_id, created_at: iso(row.created_at) }
}

export function followingTagsRepository(db: Kysely<Database>) {
  return {
    filtered(filters: FollowingTagListQuery) {
      let query = db.selectFrom('following_tags')
      if (filters.id !== undefined) query = query.where('following_tags.id', '=', filters.id)
      if (filters.user !== undefined) query = query.where('following_tags.user_id', '=', filters.user)
      if (filters.tag !== undefined) query = query.where('following_tags.tag_id', '=', filters.tag)
      return query
    },

    async page(filters: FollowingTagListQuery, list: ListRequest): Promise<RowsPage<FollowingTagRow>> {
      const ordering = orderingTerms(list.ordering, FOLLOWING_TAG_ORDERING, ['-created_at'], column('following_tags.id'))
      return pageOfRows(list, this.filtered(filters), (q) => q.selectAll('following_tags'), ordering)
    },

    async find(id: number): Promise<FollowingTagRow | undefined> {
      return db.selectFrom('following_tags').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async tagExists(tagId: number): Promise<boolean> {
      return (await db.selectFrom('tags').select('id').where('id', '=', tagId).executeTakeFirst()) !== undefined
    },

    async insert(userId: number, tagId: number): Promise<FollowingTagRow> {
      return db.insertInto('following_tags').values({ user_id: userId, tag_id: tagId }).returningAll().executeTakeFirstOrThrow()
    },

    /** Inserts unless the user follows the tag already; answers the new row, or undefined. */
    async insertIfAbsent(userId: number, tagId: number): Promise<FollowingTagRow | undefined> {
      return db
        .insertInto('following_tags')
        .values({ user_id: userId, tag_id: tagId })
        .onConflict((oc) => oc.columns(['user_id', 'tag_id']).doNothing())
        .returningAll()
        .executeTakeFirst()
    },

    async remove(id: number): Promise<FollowingTagRow | undefined> {
      return db.deleteFrom('following_tags').where('id', '=', id).returningAll().executeTakeFirst()
    },

    async removeOf(userId: number, tagId: number): Promise<FollowingTagRow | undefined> {
      return db.deleteFrom('following_tags').where('user_id', '=', userId).where('tag_id', '=', tagId).returningAll().executeTakeFirst()
    },

    /** The tag's followers_count and the user's count_following_tags follow every link. */
    async count(row: FollowingTagRow, delta: 1 | -1): Promise<void> {
      await db
        .updateTable('tags')
        .set((eb) => ({ followers_count: eb('followers_count', '+', delta) }))
        .where('id', '=', row.tag_id)
        .execute()
      await db
        .updateTable('users')
        .set((eb) => ({ count_following_tags: eb('count_following_tags', '+', delta) }))
        .where('id', '=', row.user_id)
        .execute()
    },
  }
}
