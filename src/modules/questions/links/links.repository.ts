import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, QuestionLinks } from '../../../db/database.ts'
import type { Caller } from '../../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import { iso } from '../../../core/time.ts'
import { statisticsColumns } from '../../../engines/statistics/statistics-fields.ts'
import type { UrlBuilder } from '../../../core/urls.ts'
import { questionVisibleSql } from '../../../access/question-access.ts'
import type { LinkListQuery, QuestionLinkItem } from './links.schemas.ts'

export type LinkRow = Selectable<QuestionLinks>

const DIRECT = statisticsColumns('direct')
const LINK_ORDERING = orderingFieldsOf(['id', 'title', 'created_at', 'modified_at', ...DIRECT], 'question_links')

export function linksRepository(db: Kysely<Database>) {
  return {
    /** Links of the questions the caller may see. */
    filtered(filters: LinkListQuery, caller: Caller | null) {
      let query = db
        .selectFrom('question_links')
        .innerJoin('questions', 'questions.id', 'question_links.question_id')
        .where(questionVisibleSql(caller))
      if (filters.question !== undefined) query = query.where('question_links.question_id', '=', filters.question)
      if (filters.id !== undefined) query = query.where('question_links.id', '=', filters.id)
      return query
    },

    async page(filters: LinkListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<LinkRow>> {
      const ordering = orderingTerms(list.ordering, LINK_ORDERING, ['id'], column('question_links.id'))
      return pageOfRows<LinkRow>(list, this.filtered(filters, caller), (q) => q.selectAll('question_links'), ordering)
    },

    async find(id: number, caller: Caller | null): Promise<LinkRow | undefined> {
      return this.filtered({ id }, caller).selectAll('question_links').executeTakeFirst()
    },

    /** The author of the link's question, when the caller may see it. */
    async owner(id: number, caller: Caller | null): Promise<number | undefined> {
      const row = await this.filtered({ id }, caller).select('questions.user_id').executeTakeFirst()
      return row?.user_id
    },

    async insert(values: { question_id: number; user_id: number; link: string; title: string }): Promise<LinkRow> {
      return db.insertInto('question_links').values(values).returningAll().executeTakeFirstOrThrow()
    },

    async update(id: number, values: { link?: string; title?: string }): Promise<LinkRow | undefined> {
      return db
        .updateTable('question_links')
        .set({ ...values, modified_at: sql`now()` })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('question_links').where('id', '=', id).execute()
    },
  }
}

export function toLinkItem(row: LinkRow, urls: UrlBuilder): QuestionLinkItem {
  const statistics = Object.fromEntries(DIRECT.map((name) => [name, row[name as keyof LinkRow]]))
  return {
    id: row.id,
    url: urls.detail('question_links', row.id),
    question: row.question_id,
    user: row.user_id,
    link: row.link,
    title: row.title,
    ...statistics,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  } as QuestionLinkItem
}
