import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/database.ts'

/**
 * Private answers are released in batches of k (docs/privacy.md, Batches; migration 038). The database keeps k
 * beside the unreleased changes; each process sets it from its configuration at start. Setting a lower k releases
 * the questions it reaches at once.
 */
export async function applyMinCellSize(db: Kysely<Database>, k: number): Promise<void> {
  await sql`SELECT set_min_cell_size(${k}::integer)`.execute(db)
}

/**
 * An unreleased change that breaks what the triggers keep: no question or comment holds k, and each row is a real
 * change. For a comment's votes, `question` is the comment's question and `what` names the comment.
 */
export interface UnreleasedProblem {
  question: number
  user: number | null
  what: string
}

/**
 * What `civic-survey check` verifies of the unreleased changes: fewer than k per question and per comment; a person
 * whose released state is no answer (no private vote) has a private one now; one whose released state is a private
 * answer (vote) has another state now.
 */
export async function unreleasedProblems(db: Kysely<Database>): Promise<UnreleasedProblem[]> {
  const { rows } = await sql<UnreleasedProblem>`
    SELECT r.question_id AS question, NULL::integer AS "user", count(*) || ' unreleased changes, k = ' || s.min_cell_size AS what
    FROM unreleased_answers r CROSS JOIN disclosure_settings s
    GROUP BY r.question_id, s.min_cell_size HAVING count(*) >= s.min_cell_size
    UNION ALL
    SELECT r.question_id, r.user_id, CASE WHEN r.released_answer THEN 'released answer unchanged' ELSE 'no private answer to release' END
    FROM unreleased_answers r LEFT JOIN LATERAL (SELECT * FROM current_answer(r.question_id, r.user_id)) AS a ON true
    WHERE (NOT r.released_answer AND a.private IS NOT TRUE)
       OR (r.released_answer AND a.private AND a.choice_id IS NOT DISTINCT FROM r.released_choice
           AND a.value IS NOT DISTINCT FROM r.released_value)
    UNION ALL
    SELECT c.question_id, NULL, 'comment ' || r.comment_id || ': ' || count(*) || ' unreleased changes, k = ' || s.min_cell_size
    FROM unreleased_comment_votes r JOIN comments c ON c.id = r.comment_id CROSS JOIN disclosure_settings s
    GROUP BY c.question_id, r.comment_id, s.min_cell_size HAVING count(*) >= s.min_cell_size
    UNION ALL
    SELECT c.question_id, r.user_id,
      'comment ' || r.comment_id || ': ' || CASE WHEN r.released_value IS NULL THEN 'no private vote to release' ELSE 'released vote unchanged' END
    FROM unreleased_comment_votes r JOIN comments c ON c.id = r.comment_id
    LEFT JOIN comment_votes v ON v.comment_id = r.comment_id AND v.user_id = r.user_id AND v.active
    WHERE (r.released_value IS NULL AND v.private IS NOT TRUE) OR (v.private AND v.value = r.released_value)
    ORDER BY 1, 2, 3`.execute(db)
  return rows
}
