import { sql, type Kysely } from 'kysely'
import { untyped } from '../../db/types.ts'
import type { Database } from '../../db/database.ts'
import { column, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { HistoryListQuery } from './votes.schemas.ts'

/** One answer of a user's history, current or replaced, from any of the four tables that hold them. */
export interface HistoryRow {
  question_id: number
  choice_id: number | null
  value: number | null
  skipped: boolean
  private: boolean
  importance: number | null
  current: boolean
  vote_id: number | null
  answered_at: Date
  replaced_at: Date | null
  entry_key: number
}

const HISTORY_ORDERING: OrderingFields = {
  answered_at: column('h.answered_at'),
  replaced_at: column('h.replaced_at'),
  question: column('h.question_id'),
}
/** Unique across the four sources, so that pages never overlap. */
const HISTORY_TIE_BREAK = column('h.entry_key')

export function historyRepository(db: Kysely<Database>) {
  return {
    /** A page of the user's answers (see `answersOf`), newest first unless ordered otherwise. */
    async page(filters: HistoryListQuery, userId: number, list: ListRequest): Promise<RowsPage<HistoryRow>> {
      const ordering = orderingTerms(list.ordering, HISTORY_ORDERING, ['-answered_at'], HISTORY_TIE_BREAK)
      return pageOfRows<HistoryRow>(list, this.answersOf(userId, filters.question), (q) => q.selectAll('h'), ordering)
    },

    /**
     * The user's answers, current ones (answered when last modified) and replaced or withdrawn ones,
     * likert and multiple-choice, as one table `h`; each source is narrowed by its own index.
     */
    answersOf(userId: number, questionId: number | undefined) {
      const onQuestion = questionId === undefined ? sql`` : sql`AND question_id = ${questionId}`
      const source = sql<HistoryRow>`(
        SELECT question_id, NULL::integer AS choice_id, value, skipped, private, importance, true AS current,
          id AS vote_id, modified_at AS answered_at, NULL::timestamptz AS replaced_at, id::bigint AS entry_key
        FROM question_votes WHERE user_id = ${userId} ${onQuestion}
        UNION ALL
        SELECT question_id, choice_id, value, skipped, private, NULL, true, id, modified_at, NULL, id::bigint + 4294967296
        FROM question_choice_votes WHERE user_id = ${userId} ${onQuestion}
        UNION ALL
        SELECT question_id, NULL, value, skipped, private, importance, false, NULL, answered_at, replaced_at, id::bigint + 2 * 4294967296::bigint
        FROM question_vote_history WHERE user_id = ${userId} ${onQuestion}
        UNION ALL
        SELECT question_id, choice_id, value, skipped, private, NULL, false, NULL, answered_at, replaced_at, id::bigint + 3 * 4294967296::bigint
        FROM question_choice_vote_history WHERE user_id = ${userId} ${onQuestion}
      )`
      return untyped(db).selectFrom(source.as('h'))
    },

    async questions(ids: number[]) {
      if (ids.length === 0) return []
      return db
        .selectFrom('questions')
        .select(['id', 'question', 'slug', 'subtype'])
        .where('id', 'in', [...new Set(ids)])
        .execute()
    },

    async choiceTexts(ids: number[]): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map()
      const rows = await db
        .selectFrom('question_choices')
        .select(['id', 'text'])
        .where('id', 'in', [...new Set(ids)])
        .execute()
      return new Map(rows.map((row) => [row.id, row.text]))
    },
  }
}
