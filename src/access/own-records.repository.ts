import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/database.ts'

/**
 * One row of a person's own fields: an answer (likert 0, choice 1), a follow link (2), the drafts count (3), or the
 * question set's version read with them (4).
 */
export interface OwnRow {
  kind: 0 | 1 | 2 | 3 | 4
  /** the answer's question, the followed user, the number of drafts, or the version */
  target: number
  id: number
  choice_id: number | null
  value: number | null
  skipped: boolean | null
  private: boolean | null
  importance: number | null
  created_at: Date | null
  modified_at: Date | null
}

/** What a person's kept record is read from (src/access/own-records.ts). */
export function ownRecordsRepository(db: Kysely<Database>) {
  return {
    /**
     * Everything of a person's own that the answers they read show, in one statement: their answers (private ones
     * and skips too) by question, then likert before choice, then id, as my_vote lists them; their follow links; how many of their
     * questions are unpublished; and the question set's version (migration 026) in the same snapshot, so that a walk
     * of the next questions read after the person's own write knows whether it is current.
     */
    async rows(userId: number): Promise<OwnRow[]> {
      const { rows } = await sql<OwnRow>`
        SELECT * FROM (
        SELECT 0 AS kind, question_id AS target, id, NULL::integer AS choice_id, value, skipped, private, importance, created_at, modified_at
          FROM question_votes WHERE user_id = ${userId}
        UNION ALL
        SELECT 1, question_id, id, choice_id, value, skipped, private, NULL, created_at, modified_at
          FROM question_choice_votes WHERE user_id = ${userId}
        UNION ALL
        SELECT 2, following_id, id, NULL, NULL, NULL, NULL, NULL, created_at, NULL FROM following_users WHERE user_id = ${userId}
        UNION ALL
        SELECT 3, count(*)::integer, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM questions WHERE user_id = ${userId} AND NOT publish
        UNION ALL
        SELECT 4, version::integer, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM question_set_version
        ) AS own ORDER BY kind > 1, target, kind, id`.execute(db)
      return rows
    },
  }
}
