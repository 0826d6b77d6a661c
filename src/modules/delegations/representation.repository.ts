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
     * The user's eligibility, answer and winning delegation on the question. The delegation is ranked as
     * liquid_parent ranks it: the question delegation, then tag delegations on the topic (position 0),
     * then the others by the user's own priority, the tag's position on the question, the oldest id.
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
        LEFT JOIN LATERAL (
          SELECT c.kind, c.id, c.tag_id, c.trustee_id FROM (
            SELECT 'question' AS kind, qd.id, NULL::integer AS tag_id, qd.trustee_id, 0 AS rank, 0 AS priority, 0 AS position
            FROM question_delegations qd
            WHERE qd.question_id = ${questionId} AND qd.user_id = u.id AND qd.revoked_at IS NULL
            UNION ALL
            SELECT 'tag', td.id, td.tag_id, td.trustee_id, CASE WHEN qt.position = 0 THEN 1 ELSE 2 END, td.priority, qt.position
            FROM tag_delegations td JOIN question_tags qt ON qt.tag_id = td.tag_id AND qt.question_id = ${questionId}
            WHERE td.user_id = u.id AND td.revoked_at IS NULL
          ) AS c
          ORDER BY c.rank, c.priority, c.position, c.id
          LIMIT 1
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
