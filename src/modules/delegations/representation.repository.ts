import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'

/** One user's standing on one question: all a step of the chain needs, in one statement. */
export interface Hop {
  userId: number
  /** An active, undeleted account: only those give or receive delegated weight. */
  eligible: boolean
  answer: { objectId: number; value: number | null; skipped: boolean; private: boolean; modifiedAt: Date | string } | null
  /**
   * What the published figures count of the user while a change of their private answer is unreleased (migration
   * 038): 'private' (the private answer they had) or 'none'; null when nothing of theirs is unreleased.
   */
  released: 'private' | 'none' | null
  /** The user's winning delegation for the question (rule R2), whatever their answer. */
  delegation: { kind: 'question' | 'tag'; id: number; tagId: number | null; trusteeId: number | null } | null
}

interface HopRow {
  eligible: boolean
  object_id: number | null
  value: number | null
  skipped: boolean | null
  private: boolean | null
  released_answer: boolean | null
  modified_at: Date | string | null
  kind: 'question' | 'tag' | null
  delegation_id: number | null
  tag_id: number | null
  trustee_id: number | null
}

export function representationRepository(db: Db) {
  return {
    /**
     * The user's eligibility, answer and winning delegation on the question: the first of liquid_delegations,
     * as liquid_parent takes it (src/db/delegation-order.ts).
     */
    async hop(questionId: number, userId: number): Promise<Hop | undefined> {
      const { rows } = await sql<HopRow>`
        SELECT (u.is_active AND NOT u.is_deleted) AS eligible,
               a.object_id, a.value, a.skipped, a.private, a.modified_at,
               (SELECT r.released_answer FROM unreleased_answers r WHERE r.question_id = ${questionId} AND r.user_id = u.id) AS released_answer,
               d.kind, d.id AS delegation_id, d.tag_id, d.trustee_id
        FROM users u
        LEFT JOIN LATERAL (
          SELECT v.question_id AS object_id, v.value, v.skipped, v.private, v.modified_at
          FROM question_votes v WHERE v.question_id = ${questionId} AND v.user_id = u.id
          UNION ALL
          SELECT v.choice_id, v.value, v.skipped, v.private, v.modified_at
          FROM question_choice_votes v WHERE v.question_id = ${questionId} AND v.user_id = u.id
          LIMIT 1
        ) AS a ON true
        LEFT JOIN LATERAL (SELECT * FROM liquid_delegations(${questionId}::integer, u.id) LIMIT 1
        ) AS d ON true
        WHERE u.id = ${userId}`.execute(db)
      const row = rows[0]
      if (!row) return undefined
      return {
        userId,
        eligible: row.eligible,
        answer:
          row.object_id === null
            ? null
            : {
                objectId: row.object_id,
                value: row.value,
                skipped: row.skipped!,
                private: row.private!,
                modifiedAt: row.modified_at!,
              },
        released: row.released_answer === null ? null : row.released_answer ? 'private' : 'none',
        delegation:
          row.delegation_id === null ? null : { kind: row.kind!, id: row.delegation_id, tagId: row.tag_id, trusteeId: row.trustee_id },
      }
    },
  }
}
