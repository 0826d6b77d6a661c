import { sql, type Selectable } from 'kysely'
import type { QuestionDelegations } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingFieldsOf, type OrderingFields } from '../../db/ordering.ts'
import type { ListRequest, RowsPage } from '../../db/paging.ts'
import { iso, isoOrNull } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { questionVisibleSql } from '../../access/question-access.ts'
import { delegationRows } from './delegation-rows.repository.ts'
import type { QuestionDelegation, QuestionDelegationListQuery } from './question-delegations.schemas.ts'
import type { Db } from '../../db/types.ts'
import type { ReducedUser } from '../users/users.schemas.ts'

export type QuestionDelegationRow = Selectable<QuestionDelegations>

/** The spec's name for the resource (singular). */
export const QUESTION_DELEGATION_RESOURCE = 'question_delegation'

export const QUESTION_DELEGATION_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at'], 'question_delegations'),
  question: column('question_delegations.question_id'),
}

export function toQuestionDelegation(row: QuestionDelegationRow, users: Map<number, ReducedUser>, urls: UrlBuilder): QuestionDelegation {
  return {
    id: row.id,
    url: urls.detail(QUESTION_DELEGATION_RESOURCE, row.id),
    user: row.user_id,
    question: row.question_id,
    question_url: urls.detail('questions', row.question_id),
    trustee: row.trustee_id,
    trustee_info: row.trustee_id === null ? null : (users.get(row.trustee_id) ?? null),
    active: row.revoked_at === null,
    created_at: iso(row.created_at),
    revoked_at: isoOrNull(row.revoked_at),
  }
}

export function questionDelegationsRepository(db: Db) {
  const rows = delegationRows(db, {
    table: 'question_delegations',
    subject: 'question_id',
    ordering: QUESTION_DELEGATION_ORDERING,
    defaultOrdering: ['-created_at'],
  })
  return {
    ...rows,

    /** A page of the user's own delegations, by the listing's own filter names. */
    async page(userId: number, filters: QuestionDelegationListQuery, list: ListRequest): Promise<RowsPage<QuestionDelegationRow>> {
      return rows.page(userId, { history: filters.history, subject: filters.question, trustee: filters.trustee }, list)
    },

    async insert(values: { user_id: number; question_id: number; trustee_id: number | null }): Promise<QuestionDelegationRow> {
      return db.insertInto('question_delegations').values(values).returningAll().executeTakeFirstOrThrow()
    },

    /**
     * How many active delegations by active accounts name the trustee, per question the trustee can see;
     * the most first.
     */
    async countsFor(trustee: Caller): Promise<{ question_id: number; count: number }[]> {
      const rows = await db
        .selectFrom('question_delegations')
        .innerJoin('users', 'users.id', 'question_delegations.user_id')
        .innerJoin('questions', 'questions.id', 'question_delegations.question_id')
        .select(['question_delegations.question_id', (eb) => eb.fn.countAll<number>().as('count')])
        .where('question_delegations.trustee_id', '=', trustee.id)
        .where('question_delegations.revoked_at', 'is', null)
        .where('users.is_active', '=', true)
        .where('users.is_deleted', '=', false)
        .where(questionVisibleSql(trustee))
        .groupBy('question_delegations.question_id')
        .orderBy(sql`count(*)`, 'desc')
        .orderBy('question_delegations.question_id')
        .execute()
      return rows.map((row) => ({ question_id: row.question_id, count: Number(row.count) }))
    },
  }
}
