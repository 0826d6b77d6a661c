import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, QuestionCollectionItems } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { questionVisibleSql } from '../../access/question-access.ts'
import type { BreakContent, ItemListQuery } from './items.schemas.ts'

export type ItemRow = Selectable<QuestionCollectionItems>

export const ITEM_ORDERING = orderingFieldsOf(['id', 'order', 'created_at', 'modified_at'], 'question_collection_items')

export function itemsRepository(db: Kysely<Database>) {
  return {
    /** Items the caller may see: breaks, and questions visible to them (others' drafts stay hidden). */
    filtered(filters: ItemListQuery, caller: Caller | null) {
      let query = db
        .selectFrom('question_collection_items')
        .leftJoin('questions', 'questions.id', 'question_collection_items.question_id')
        .where((eb) => eb.or([eb('question_collection_items.type', '=', 'B'), questionVisibleSql(caller)]))
      if (filters.parent !== undefined) query = query.where('question_collection_items.parent_id', '=', filters.parent)
      if (filters.id !== undefined) query = query.where('question_collection_items.id', '=', filters.id)
      if (filters.type !== undefined) query = query.where('question_collection_items.type', '=', filters.type)
      if (filters.object_id !== undefined) query = query.where('question_collection_items.question_id', '=', filters.object_id)
      return query
    },

    async page(filters: ItemListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<ItemRow>> {
      const ordering = orderingTerms(list.ordering, ITEM_ORDERING, ['order'], column('question_collection_items.id'))
      return pageOfRows(list, this.filtered(filters, caller), (q) => q.selectAll('question_collection_items'), ordering)
    },

    /** The item when the caller may see it. */
    async findVisible(id: number, caller: Caller | null): Promise<ItemRow | undefined> {
      return this.filtered({ id }, caller).selectAll('question_collection_items').executeTakeFirst()
    },

    async find(id: number): Promise<ItemRow | undefined> {
      return db.selectFrom('question_collection_items').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async ofCollection(collectionId: number): Promise<ItemRow[]> {
      return db
        .selectFrom('question_collection_items')
        .selectAll()
        .where('parent_id', '=', collectionId)
        .orderBy('order')
        .orderBy('id')
        .execute()
    },

    /** The questions of a collection, in its order (breaks left out). */
    async questionIdsOf(collectionId: number): Promise<number[]> {
      const rows = await db
        .selectFrom('question_collection_items')
        .select('question_id')
        .where('parent_id', '=', collectionId)
        .where('type', '=', 'Q')
        .orderBy('order')
        .orderBy('id')
        .execute()
      return rows.map((row) => row.question_id!)
    },

    /** Keeps the question from being deleted until the transaction ends (KEY SHARE: its answers go on). */
    async holdQuestion(questionId: number): Promise<void> {
      await db.selectFrom('questions').select('id').where('id', '=', questionId).forKeyShare().execute()
    },

    async hasQuestion(collectionId: number, questionId: number): Promise<boolean> {
      const row = await db
        .selectFrom('question_collection_items')
        .select('id')
        .where('parent_id', '=', collectionId)
        .where('question_id', '=', questionId)
        .executeTakeFirst()
      return row !== undefined
    },

    async nextOrder(collectionId: number): Promise<number> {
      const row = await db
        .selectFrom('question_collection_items')
        .select((eb) => eb.fn.max('order').as('last'))
        .where('parent_id', '=', collectionId)
        .executeTakeFirst()
      return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1
    },

    async insert(values: {
      parent_id: number
      type: 'Q' | 'B'
      question_id: number | null
      content: BreakContent | null
      order: number
    }): Promise<ItemRow> {
      return db
        .insertInto('question_collection_items')
        .values({ ...values, content: values.content === null ? null : JSON.stringify(values.content) })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    async update(id: number, values: { order?: number; content?: BreakContent }): Promise<void> {
      const set: Record<string, unknown> = { modified_at: sql`now()` }
      if (values.order !== undefined) set.order = values.order
      if (values.content !== undefined) set.content = JSON.stringify(values.content)
      await db.updateTable('question_collection_items').set(set).where('id', '=', id).execute()
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('question_collection_items').where('id', '=', id).execute()
    },

    /** Every order of a reorder in one statement. */
    async setOrders(collectionId: number, orders: { id: number; order: number }[]): Promise<void> {
      if (orders.length === 0) return
      await sql`UPDATE question_collection_items AS item SET "order" = moved.position, modified_at = now()
        FROM (SELECT unnest(${orders.map((o) => o.id)}::int4[]) AS id, unnest(${orders.map((o) => o.order)}::int4[]) AS position) AS moved
        WHERE item.id = moved.id AND item.parent_id = ${collectionId} AND item."order" IS DISTINCT FROM moved.position`.execute(db)
    },
  }
}
