import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely'
import type { Caller } from '../../../core/caller.ts'
import type { Database, GroupQuestionConnections } from '../../../db/database.ts'
import { fieldError } from '../../../core/errors.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import type { QuestionConnectionListQuery } from './question-connections.schemas.ts'

export type QuestionConnectionRow = Selectable<GroupQuestionConnections>

export const QUESTION_CONNECTION_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'active', 'created_at', 'modified_at'], 'group_question_connections'),
  group: column('group_question_connections.group_id'),
  question: column('group_question_connections.question_id'),
}

const TRUE = new Set(['true', 'True', '1', 'yes', 'on'])
const FALSE = new Set(['false', 'False', '0', 'no', 'off'])

/** A boolean query parameter as django-filter reads it. */
export function booleanFilter(value: string, field: string): boolean {
  if (TRUE.has(value)) return true
  if (FALSE.has(value)) return false
  throw fieldError(field, 'Must be a valid boolean.')
}

/** A question the caller may see: published, or their own, or any for staff (as /api/questions/ shows them). */
function questionVisible(eb: ExpressionBuilder<Database, 'questions'>, caller: Caller | null) {
  if (caller?.isStaff) return sql<boolean>`true`
  return caller ? eb.or([eb('questions.publish', '=', true), eb('questions.user_id', '=', caller.id)]) : eb('questions.publish', '=', true)
}

export function questionConnectionsRepository(db: Kysely<Database>) {
  return {
    filtered(filters: QuestionConnectionListQuery, caller: Caller | null) {
      let query = db.selectFrom('group_question_connections').where((eb) =>
        eb.exists(
          eb
            .selectFrom('questions')
            .select('questions.id')
            .whereRef('questions.id', '=', 'group_question_connections.question_id')
            .where((q) => questionVisible(q, caller)),
        ),
      )
      if (filters.id !== undefined) query = query.where('group_question_connections.id', '=', filters.id)
      if (filters.group !== undefined) query = query.where('group_question_connections.group_id', '=', filters.group)
      if (filters.question !== undefined) query = query.where('group_question_connections.question_id', '=', filters.question)
      if (filters.active !== undefined && filters.active !== '')
        query = query.where('group_question_connections.active', '=', booleanFilter(filters.active, 'active'))
      return query
    },

    async page(filters: QuestionConnectionListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<QuestionConnectionRow>> {
      const ordering = orderingTerms(list.ordering, QUESTION_CONNECTION_ORDERING, ['created_at'], column('group_question_connections.id'))
      return pageOfRows(list, this.filtered(filters, caller), (q) => q.selectAll('group_question_connections'), ordering)
    },

    async findVisible(id: number, caller: Caller | null): Promise<QuestionConnectionRow | undefined> {
      return this.filtered({ id }, caller).selectAll('group_question_connections').executeTakeFirst()
    },

    async find(id: number): Promise<QuestionConnectionRow | undefined> {
      return db.selectFrom('group_question_connections').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async questionVisibleTo(questionId: number, caller: Caller): Promise<boolean> {
      const row = await db
        .selectFrom('questions')
        .select('id')
        .where('id', '=', questionId)
        .where((eb) => questionVisible(eb, caller))
        .executeTakeFirst()
      return row !== undefined
    },

    async insert(values: { group_id: number; question_id: number; active?: boolean }): Promise<QuestionConnectionRow> {
      return db.insertInto('group_question_connections').values(values).returningAll().executeTakeFirstOrThrow()
    },

    async setActive(id: number, active: boolean): Promise<QuestionConnectionRow | undefined> {
      return db
        .updateTable('group_question_connections')
        .set({ active, modified_at: sql`now()` })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('group_question_connections').where('id', '=', id).execute()
    },
  }
}
