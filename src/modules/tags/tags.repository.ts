import type { Kysely, Selectable } from 'kysely'
import { shownTagVotes } from './tag-votes-count.ts'
import type { Database, Tags } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { matchingEveryTerm } from '../../db/text-search.ts'
import type { Tag, TagInfo, TagListQuery } from './tags.schemas.ts'

/** A tag with the votes_count everyone sees (tag-votes-count.ts). */
export type TagRow = Selectable<Tags> & { votes_count: number }

/** votes_count sorts on the published count, the one shown. */
const TAG_ORDERING = {
  ...orderingFieldsOf(['id', 'text', 'followers_count', 'questions_count', 'created_at', 'modified_at'], 'tags'),
  votes_count: shownTagVotes(),
}

export function tagsRepository(db: Kysely<Database>) {
  return {
    filtered(filters: TagListQuery & { quick?: boolean }) {
      let query = db.selectFrom('tags')
      if (filters.quick) query = query.where('tags.quick_order', 'is not', null)
      if (filters.id !== undefined) query = query.where('tags.id', '=', filters.id)
      if (filters.text) query = query.where((eb) => eb(eb.fn('lower', ['tags.text']), '=', filters.text!.toLowerCase()))
      const searching = filters.search ? matchingEveryTerm(filters.search, ['tags.text']) : null
      if (searching) query = query.where(searching)
      return query
    },

    /** A page of tags; quick tags come in their display order unless ordering says otherwise. */
    async page(filters: TagListQuery & { quick: boolean }, list: ListRequest): Promise<RowsPage<TagRow>> {
      const fallback = filters.quick ? ['quick_order'] : ['text']
      const fields = filters.quick ? { ...TAG_ORDERING, quick_order: column('tags.quick_order') } : TAG_ORDERING
      const ordering = orderingTerms(list.ordering, fields, fallback, column('tags.id'))
      return pageOfRows<TagRow>(
        list,
        this.filtered(filters),
        (q) => q.selectAll('tags').select(shownTagVotes().as('votes_count')),
        ordering,
      )
    },

    async find(id: number, quick: boolean): Promise<TagRow | undefined> {
      const [row] = await this.filtered({ id, quick }).selectAll('tags').select(shownTagVotes().as('votes_count')).execute()
      return row
    },

    async exists(id: number): Promise<boolean> {
      return (await db.selectFrom('tags').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    },

    async findByIds(ids: number[]): Promise<Map<number, TagRow>> {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return new Map()
      const rows = await db
        .selectFrom('tags')
        .selectAll('tags')
        .select(shownTagVotes().as('votes_count'))
        .where('id', 'in', unique)
        .execute()
      return new Map(rows.map((row) => [row.id, row]))
    },

    async followedBy(callerId: number | null, tagIds: number[]): Promise<Set<number>> {
      if (callerId === null || tagIds.length === 0) return new Set()
      const rows = await db
        .selectFrom('following_tags')
        .select('tag_id')
        .where('user_id', '=', callerId)
        .where('tag_id', 'in', tagIds)
        .execute()
      return new Set(rows.map((row) => row.tag_id))
    },
  }
}

/**
 * A tag as anyone sees it: votes_count is the published count (migration 041), whose private answers count only
 * once the tag holds MIN_CELL_SIZE of them. Wherever a tag is embedded, select shownTagVotes() as it.
 */
export function toTagInfo(row: Pick<TagRow, 'id' | 'text' | 'followers_count' | 'questions_count' | 'votes_count'>): TagInfo {
  return {
    id: row.id,
    text: row.text,
    followers_count: row.followers_count,
    questions_count: row.questions_count,
    votes_count: row.votes_count,
  }
}

export function toTag(row: TagRow, following: boolean, urls: UrlBuilder): Tag {
  return {
    ...toTagInfo(row),
    url: urls.detail('tags', row.id),
    slug: row.slug,
    image: row.image,
    following,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}
