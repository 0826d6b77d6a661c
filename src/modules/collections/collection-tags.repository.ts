import type { Kysely } from 'kysely'
import { shownTagVotes } from '../tags/tag-votes-count.ts'
import type { Database } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { CollectionTag, CollectionTagQuery } from './related.schemas.ts'

export const COLLECTION_TAG_ORDERING = orderingFieldsOf(['id', 'created_at'], 'ct')

const COLUMNS = [
  'ct.id',
  'ct.collection_id',
  'ct.tag_id',
  'ct.created_at',
  'tags.text',
  'tags.followers_count',
  'tags.questions_count',
  shownTagVotes().as('votes_count'),
] as const

export type CollectionTagRow = {
  id: number
  collection_id: number
  tag_id: number
  created_at: Date
  text: string
  followers_count: number
  questions_count: number
  votes_count: number
}

export function collectionTagsRepository(db: Kysely<Database>) {
  return {
    filtered(filters: CollectionTagQuery) {
      let query = db.selectFrom('question_collection_tags as ct').innerJoin('tags', 'tags.id', 'ct.tag_id')
      const collection = filters.collection ?? filters.parent
      if (collection !== undefined) query = query.where('ct.collection_id', '=', collection)
      if (filters.tag !== undefined) query = query.where('ct.tag_id', '=', filters.tag)
      return query
    },

    async page(filters: CollectionTagQuery, list: ListRequest): Promise<RowsPage<CollectionTagRow>> {
      const ordering = orderingTerms(list.ordering, COLLECTION_TAG_ORDERING, ['created_at'], column('ct.id'))
      return pageOfRows(list, this.filtered(filters), (q) => q.select(COLUMNS), ordering)
    },

    async find(id: number): Promise<CollectionTagRow | undefined> {
      return db
        .selectFrom('question_collection_tags as ct')
        .innerJoin('tags', 'tags.id', 'ct.tag_id')
        .select(COLUMNS)
        .where('ct.id', '=', id)
        .executeTakeFirst()
    },

    async owner(id: number): Promise<number | undefined> {
      const row = await db
        .selectFrom('question_collection_tags as ct')
        .innerJoin('question_collections as c', 'c.id', 'ct.collection_id')
        .select('c.user_id')
        .where('ct.id', '=', id)
        .executeTakeFirst()
      return row?.user_id
    },

    async insert(collectionId: number, tagId: number): Promise<number> {
      return (
        await db
          .insertInto('question_collection_tags')
          .values({ collection_id: collectionId, tag_id: tagId })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('question_collection_tags').where('id', '=', id).execute()
    },
  }
}

export function toCollectionTag(row: CollectionTagRow, urls: UrlBuilder): CollectionTag {
  return {
    id: row.id,
    url: urls.detail('question_collection_tags', row.id),
    collection: row.collection_id,
    collection_url: urls.detail('question_collections', row.collection_id),
    tag: row.tag_id,
    tag_info: {
      id: row.tag_id,
      text: row.text,
      followers_count: row.followers_count,
      questions_count: row.questions_count,
      votes_count: row.votes_count,
    },
    created_at: iso(row.created_at),
  }
}
