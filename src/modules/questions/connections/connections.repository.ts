import type { Kysely, Selectable } from 'kysely'
import type { Database, QuestionQuestionConnections } from '../../../db/database.ts'
import type { Caller } from '../../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import { iso } from '../../../core/time.ts'
import { statisticsColumns } from '../../../engines/statistics/statistics-fields.ts'
import type { UrlBuilder } from '../../../core/urls.ts'
import { questionVisibleSql } from '../../../access/question-access.ts'
import type { ConnectionItem, ConnectionListQuery } from './connections.schemas.ts'

export type ConnectionRow = Selectable<QuestionQuestionConnections>

const DIRECT = statisticsColumns('direct')
const CONNECTION_ORDERING = orderingFieldsOf(['id', 'created_at', 'modified_at', ...DIRECT], 'question_question_connections')

export function connectionsRepository(db: Kysely<Database>) {
  return {
    /** Connections whose two questions the caller may both see. */
    filtered(filters: ConnectionListQuery, caller: Caller | null) {
      let query = db
        .selectFrom('question_question_connections')
        .innerJoin('questions as question_from', 'question_from.id', 'question_question_connections.from_question_id')
        .innerJoin('questions as question_to', 'question_to.id', 'question_question_connections.to_question_id')
        .where(questionVisibleSql(caller, 'question_from'))
        .where(questionVisibleSql(caller, 'question_to'))
      if (filters.question_from !== undefined)
        query = query.where('question_question_connections.from_question_id', '=', filters.question_from)
      if (filters.question_to !== undefined) query = query.where('question_question_connections.to_question_id', '=', filters.question_to)
      if (filters.user !== undefined) query = query.where('question_question_connections.user_id', '=', filters.user)
      if (filters.id !== undefined) query = query.where('question_question_connections.id', '=', filters.id)
      return query
    },

    async page(filters: ConnectionListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<ConnectionRow>> {
      const ordering = orderingTerms(list.ordering, CONNECTION_ORDERING, ['id'], column('question_question_connections.id'), (name) =>
        name === 'question_from'
          ? column('question_question_connections.from_question_id')
          : name === 'question_to'
            ? column('question_question_connections.to_question_id')
            : null,
      )
      return pageOfRows<ConnectionRow>(list, this.filtered(filters, caller), (q) => q.selectAll('question_question_connections'), ordering)
    },

    async find(id: number, caller: Caller | null): Promise<ConnectionRow | undefined> {
      return this.filtered({ id }, caller).selectAll('question_question_connections').executeTakeFirst()
    },

    async insert(values: { from_question_id: number; to_question_id: number; user_id: number }): Promise<ConnectionRow> {
      return db.insertInto('question_question_connections').values(values).returningAll().executeTakeFirstOrThrow()
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('question_question_connections').where('id', '=', id).execute()
    },
  }
}

export function toConnectionItem(row: ConnectionRow, urls: UrlBuilder): ConnectionItem {
  const statistics = Object.fromEntries(DIRECT.map((name) => [name, row[name as keyof ConnectionRow]]))
  return {
    id: row.id,
    url: urls.detail('question_question_connections', row.id),
    question_from: row.from_question_id,
    question_to: row.to_question_id,
    user: row.user_id,
    ...statistics,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  } as ConnectionItem
}
