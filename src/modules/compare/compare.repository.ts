import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Distances } from './compare.compute.ts'

/** One person's distance histogram against the person compared with. */
export interface DistanceRow {
  user_id: number
  distances: Distances
}

/**
 * The answers a viewer may compare: current, not skipped, and public unless the viewer wrote them (a private
 * answer counts only in its author's own comparisons). `owner` is the table alias.
 */
const comparable = (owner: string, viewer: number | null) =>
  sql`${sql.ref(`${owner}.value`)} IS NOT NULL AND (NOT ${sql.ref(`${owner}.private`)} OR ${sql.ref(`${owner}.user_id`)} = ${viewer}::int)`

/**
 * The distance histogram of `userId` against each of `others`, as `viewer` may see their answers: one statement
 * whatever the number of others. The person's comparable answers are read once; each is matched with the others'
 * answers to the same question through the (question, user) indexes. Others with no common question are absent.
 */
export async function distanceHistograms(
  db: Kysely<Database>,
  viewer: number | null,
  userId: number,
  others: readonly number[],
): Promise<DistanceRow[]> {
  if (others.length === 0) return []
  const { rows } = await sql<{ user_id: number; d0: number; d1: number; d2: number; d3: number; d4: number }>`
    WITH others AS (SELECT DISTINCT unnest(${[...others]}::int4[]) AS user_id),
    mine_likert AS (
      SELECT a.question_id, a.value FROM question_votes a WHERE a.user_id = ${userId} AND ${comparable('a', viewer)}
    ),
    mine_choice AS (
      SELECT a.question_id, a.choice_id FROM question_choice_votes a WHERE a.user_id = ${userId} AND ${comparable('a', viewer)}
    ),
    distances AS (
      SELECT b.user_id, abs(b.value - m.value) AS distance
      FROM mine_likert m JOIN question_votes b ON b.question_id = m.question_id
      WHERE b.user_id IN (SELECT user_id FROM others) AND b.user_id <> ${userId} AND ${comparable('b', viewer)}
      UNION ALL
      SELECT b.user_id, CASE WHEN b.choice_id = m.choice_id THEN 0 ELSE 4 END
      FROM mine_choice m JOIN question_choice_votes b ON b.question_id = m.question_id
      WHERE b.user_id IN (SELECT user_id FROM others) AND b.user_id <> ${userId} AND ${comparable('b', viewer)}
    )
    SELECT user_id,
      count(*) FILTER (WHERE distance = 0)::int AS d0, count(*) FILTER (WHERE distance = 1)::int AS d1,
      count(*) FILTER (WHERE distance = 2)::int AS d2, count(*) FILTER (WHERE distance = 3)::int AS d3,
      count(*) FILTER (WHERE distance = 4)::int AS d4
    FROM distances GROUP BY user_id ORDER BY user_id`.execute(db)
  return rows.map((row) => ({ user_id: Number(row.user_id), distances: [row.d0, row.d1, row.d2, row.d3, row.d4] }))
}
