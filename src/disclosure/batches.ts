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

/** An unreleased change that breaks what the trigger keeps: no question holds k, and each row is a real change. */
export interface UnreleasedProblem {
  question: number
  user: number | null
  what: string
}

/**
 * What `civic-survey check` verifies of the unreleased changes: fewer than k per question; a person whose released
 * state is no answer has a private answer now; one whose released state is a private answer has another state now.
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
    ORDER BY 1, 2`.execute(db)
  return rows
}
