import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely'
import { shownTagVotes } from '../tags/tag-votes-count.ts'
import type { Database, QuestionCollections } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type AnySelect, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { matchingEveryTerm } from '../../db/text-search.ts'
import { parseIdList } from '../../core/integers.ts'
import type { Caller } from '../../core/caller.ts'
import { questionVisibleSql } from '../../access/question-access.ts'
import type { CollectionListQuery } from './collections.schemas.ts'
import { listedCollection, listedCountOrdering, unlistedQuestions, type CollectionRowFor, type ListedCollection } from './listed-counts.ts'

export type CollectionRow = Selectable<QuestionCollections>

/** The orderings of the listings; the counts sort as the caller is shown them. */
function collectionOrdering(caller: Caller | null): OrderingFields {
  return {
    ...orderingFieldsOf(['id', 'name', 'created_at', 'modified_at', 'expire_at'], 'question_collections'),
    ...listedCountOrdering(caller),
    user: column('question_collections.user_id'),
  }
}

function statsOrdering(caller: Caller | null): OrderingFields {
  return { ...orderingFieldsOf(['id', 'created_at'], 'question_collections'), ...listedCountOrdering(caller) }
}

/** Every column of the row, and how many of its questions the caller cannot list (listed-counts.ts). */
function selectFor(caller: Caller | null) {
  return (query: AnySelect) => query.selectAll('question_collections').select(unlistedQuestions(caller).as('unlisted_questions'))
}

export interface CollectionValues {
  name?: string
  desc?: string | null
  end_text?: string | null
  photo?: string | null
  geo_id?: number | null
  expire_at?: Date | null
}

export function collectionsRepository(db: Kysely<Database>) {
  return {
    filtered(filters: CollectionListQuery) {
      let query = db.selectFrom('question_collections')
      if (filters.id !== undefined) query = query.where('question_collections.id', '=', filters.id)
      if (filters.id__in !== undefined) query = query.where('question_collections.id', 'in', [...parseIdList(filters.id__in), -1])
      if (filters.user !== undefined) query = query.where('question_collections.user_id', '=', filters.user)
      if (filters.copied_from !== undefined) query = query.where('question_collections.copied_from_id', '=', filters.copied_from)
      if (filters.user__username !== undefined) {
        const username = filters.user__username
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('users')
              .select('users.id')
              .whereRef('users.id', '=', 'question_collections.user_id')
              .where('users.username', '=', username),
          ),
        )
      }
      const searching = filters.search
        ? matchingEveryTerm(filters.search, ['question_collections.name', 'question_collections.desc'])
        : null
      if (searching) query = query.where(searching)
      return query
    },

    /** A page of collections as the caller sees them, their counts in the page's statement. */
    async page(filters: CollectionListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<ListedCollection>> {
      const ordering = orderingTerms(list.ordering, collectionOrdering(caller), ['-created_at'], column('question_collections.id'))
      const page = await pageOfRows<CollectionRowFor>(list, this.filtered(filters), selectFor(caller), ordering)
      return { ...page, rows: page.rows.map(listedCollection) }
    },

    /** collection_stats lists collections by id alone, in its own orderings. */
    async statsPage(id: number | undefined, caller: Caller | null, list: ListRequest): Promise<RowsPage<ListedCollection>> {
      const ordering = orderingTerms(list.ordering, statsOrdering(caller), ['id'], column('question_collections.id'))
      const page = await pageOfRows<CollectionRowFor>(list, this.filtered({ id }), selectFor(caller), ordering)
      return { ...page, rows: page.rows.map(listedCollection) }
    },

    /** The stored row, for rules that do not show it (owner, existence). */
    async find(id: number): Promise<CollectionRow | undefined> {
      return db.selectFrom('question_collections').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** The collection as the caller sees it. */
    async findFor(id: number, caller: Caller | null): Promise<ListedCollection | undefined> {
      const row = (await selectFor(caller)(
        db.selectFrom('question_collections').where('question_collections.id', '=', id),
      ).executeTakeFirst()) as CollectionRowFor | undefined
      return row && listedCollection(row)
    },

    /** The collections as the caller sees them, in one statement. */
    async findManyFor(ids: number[], caller: Caller | null): Promise<ListedCollection[]> {
      if (ids.length === 0) return []
      const rows = (await selectFor(caller)(
        db.selectFrom('question_collections').where('question_collections.id', 'in', [...new Set(ids)]),
      ).execute()) as CollectionRowFor[]
      return rows.map(listedCollection)
    },

    /**
     * Every write to a collection or its items takes this lock first, so item orders, counters and reorders
     * are applied one transaction at a time. NO KEY UPDATE: answers naming the collection are not held up.
     */
    async lock(id: number): Promise<CollectionRow | undefined> {
      return db.selectFrom('question_collections').selectAll().where('id', '=', id).forNoKeyUpdate().executeTakeFirst()
    },

    async insert(values: CollectionValues & { name: string; user_id: number; copied_from_id?: number | null }): Promise<CollectionRow> {
      return db.insertInto('question_collections').values(values).returningAll().executeTakeFirstOrThrow()
    },

    async update(id: number, values: CollectionValues): Promise<void> {
      await db
        .updateTable('question_collections')
        .set({ ...values, modified_at: sql`now()` })
        .where('id', '=', id)
        .execute()
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('question_collections').where('id', '=', id).execute()
    },

    async touch(id: number): Promise<void> {
      await db
        .updateTable('question_collections')
        .set({ modified_at: sql`now()` })
        .where('id', '=', id)
        .execute()
    },

    /** Moves the stored counters by exact deltas (the collection is locked by the caller). */
    async addCounts(id: number, questions: number, items: number): Promise<void> {
      await db
        .updateTable('question_collections')
        .set({ question_count: sql`question_count + ${questions}`, item_count: sql`item_count + ${items}`, modified_at: sql`now()` })
        .where('id', '=', id)
        .execute()
    },

    /**
     * Copies the source's items (breaks, and the questions `questionVisible` admits, renumbered from 0) and tags
     * into the copy, and counts them: one statement each, whatever the size.
     */
    async copyContents(sourceId: number, copyId: number, questionVisible: RawBuilder<boolean>): Promise<CollectionRow> {
      await sql`INSERT INTO question_collection_items (parent_id, type, question_id, content, "order")
        SELECT ${copyId}, item.type, item.question_id, item.content, (row_number() OVER (ORDER BY item."order", item.id) - 1)::int
        FROM question_collection_items item LEFT JOIN questions ON questions.id = item.question_id
        WHERE item.parent_id = ${sourceId} AND (item.type = 'B' OR ${questionVisible})`.execute(db)
      await sql`INSERT INTO question_collection_tags (collection_id, tag_id)
        SELECT ${copyId}, tag_id FROM question_collection_tags WHERE collection_id = ${sourceId} ORDER BY created_at, id`.execute(db)
      return db
        .updateTable('question_collections')
        .set({
          question_count: sql`(SELECT count(*) FROM question_collection_items WHERE parent_id = ${copyId} AND type = 'Q')::int`,
          item_count: sql`(SELECT count(*) FROM question_collection_items WHERE parent_id = ${copyId})::int`,
        })
        .where('id', '=', copyId)
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    /**
     * For each collection, how many of the questions the caller lists they answered (likert or choice, skips
     * included): the part of the caller's progress whose whole is their listed question count.
     */
    async answeredBy(caller: Caller, collectionIds: number[]): Promise<Map<number, number>> {
      if (collectionIds.length === 0) return new Map()
      const rows = await db
        .selectFrom('question_collection_items as item')
        .innerJoin('questions', 'questions.id', 'item.question_id')
        .select([
          'item.parent_id',
          sql<string>`count(*) FILTER (WHERE EXISTS (SELECT 1 FROM question_votes qv WHERE qv.question_id = item.question_id AND qv.user_id = ${caller.id})
            OR EXISTS (SELECT 1 FROM question_choice_votes qcv WHERE qcv.question_id = item.question_id AND qcv.user_id = ${caller.id}))`.as(
            'answered',
          ),
        ])
        .where('item.parent_id', 'in', [...new Set(collectionIds)])
        .where(questionVisibleSql(caller))
        .groupBy('item.parent_id')
        .execute()
      return new Map(rows.map((row) => [row.parent_id, Number(row.answered)]))
    },

    async tagsOf(collectionIds: number[]) {
      if (collectionIds.length === 0) return []
      return db
        .selectFrom('question_collection_tags as ct')
        .innerJoin('tags', 'tags.id', 'ct.tag_id')
        .select([
          'ct.collection_id',
          'tags.id',
          'tags.text',
          'tags.followers_count',
          'tags.questions_count',
          shownTagVotes().as('votes_count'),
        ])
        .where('ct.collection_id', 'in', [...new Set(collectionIds)])
        .orderBy('ct.collection_id')
        .orderBy('ct.created_at')
        .orderBy('ct.id')
        .execute()
    },
  }
}
