import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { questionVisibleSql } from '../../access/question-access.ts'

export interface CollectionUserRow {
  user_id: number
  answered_count: number
  last_answered_at: Date
}

export const COLLECTION_USER_ORDERING: OrderingFields = {
  answered_count: column('answerers.answered_count'),
  last_answered_at: column('answerers.last_answered_at'),
  id: column('answerers.user_id'),
  user: column('answerers.user_id'),
}

/** A private answer is seen only by its author and staff. */
function seen(viewer: Caller | null, table: string): RawBuilder<boolean> {
  if (viewer?.isStaff) return sql<boolean>`true`
  return sql<boolean>`(NOT ${sql.ref(`${table}.private`)} OR ${sql.ref(`${table}.user_id`)} = ${viewer?.id ?? 0})`
}

/**
 * People who answered the collection's questions (likert or choice, skips included), one row each, as the
 * viewer may know it: only answers they may see, on questions they may see. Deactivated accounts are left out.
 */
function answerers(db: Kysely<Database>, collectionId: number, viewer: Caller | null, userId?: number) {
  const only = userId === undefined ? sql`` : sql`AND v.user_id = ${userId}`
  const grouped = sql<CollectionUserRow>`(
    SELECT v.user_id, count(DISTINCT v.question_id)::int AS answered_count, max(v.modified_at) AS last_answered_at
    FROM question_collection_items item
    JOIN questions ON questions.id = item.question_id
    CROSS JOIN LATERAL (
      SELECT qv.user_id, qv.question_id, qv.modified_at FROM question_votes qv WHERE qv.question_id = item.question_id AND ${seen(viewer, 'qv')}
      UNION ALL
      SELECT qcv.user_id, qcv.question_id, qcv.modified_at FROM question_choice_votes qcv WHERE qcv.question_id = item.question_id AND ${seen(viewer, 'qcv')}
    ) v
    JOIN users u ON u.id = v.user_id AND (u.is_active OR u.is_deleted)
    WHERE item.parent_id = ${collectionId} AND item.type = 'Q' AND ${questionVisibleSql(viewer)} ${only}
    GROUP BY v.user_id
  )`
  return db.selectFrom(grouped.as('answerers'))
}

export function collectionUsersRepository(db: Kysely<Database>) {
  return {
    async page(
      collectionId: number,
      viewer: Caller | null,
      userId: number | undefined,
      list: ListRequest,
    ): Promise<RowsPage<CollectionUserRow>> {
      const ordering = orderingTerms(
        list.ordering,
        COLLECTION_USER_ORDERING,
        ['-answered_count', '-last_answered_at'],
        column('answerers.user_id'),
      )
      return pageOfRows(list, answerers(db, collectionId, viewer, userId), (q) => q.selectAll(), ordering)
    },
  }
}
