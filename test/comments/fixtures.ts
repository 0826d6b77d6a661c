import assert from 'node:assert/strict'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { recomputeStatistics } from '../../src/engines/figures/recompute.ts'

/** Counters this part of the service keeps, as stored. */
async function storedCounters(db: Kysely<Database>) {
  const [questions, comments, users] = await Promise.all([
    db
      .selectFrom('questions')
      .select(['id', 'count_comments', 'count_comments_info', 'count_comments_reason', 'count_comments_suggestion'])
      .orderBy('id')
      .execute(),
    db.selectFrom('comments').select(['id', 'direct_maximum', 'direct_minimum', 'report_count']).orderBy('id').execute(),
    db.selectFrom('users').select(['id', 'count_comments', 'count_comment_votes']).orderBy('id').execute(),
  ])
  return { questions, comments, users }
}

/** The same counters computed here from the raw rows, apart from the service's code. */
async function countedFromRows(db: Kysely<Database>) {
  const questions = await sql<any>`SELECT q.id,
      count(c.id) FILTER (WHERE NOT c.is_hidden)::int AS count_comments,
      count(c.id) FILTER (WHERE NOT c.is_hidden AND c.subtype = 'info')::int AS count_comments_info,
      count(c.id) FILTER (WHERE NOT c.is_hidden AND c.subtype = 'reason')::int AS count_comments_reason,
      count(c.id) FILTER (WHERE NOT c.is_hidden AND c.subtype = 'suggestion')::int AS count_comments_suggestion
    FROM questions q LEFT JOIN comments c ON c.question_id = q.id GROUP BY q.id ORDER BY q.id`.execute(db)
  const comments = await sql<any>`SELECT c.id,
      (SELECT count(*)::int FROM comment_votes v WHERE v.comment_id = c.id AND v.active AND v.value = 5) AS direct_maximum,
      (SELECT count(*)::int FROM comment_votes v WHERE v.comment_id = c.id AND v.active AND v.value = 1) AS direct_minimum,
      (SELECT count(*)::int FROM comment_reports r WHERE r.comment_id = c.id) AS report_count
    FROM comments c ORDER BY c.id`.execute(db)
  const users = await sql<any>`SELECT u.id,
      (SELECT count(*)::int FROM comments c WHERE c.user_id = u.id) AS count_comments,
      (SELECT count(*)::int FROM comment_votes v WHERE v.user_id = u.id AND v.active) AS count_comment_votes
    FROM users u ORDER BY u.id`.execute(db)
  return { questions: questions.rows, comments: comments.rows, users: users.rows }
}

/**
 * Stored counters equal both a count from the raw rows and what the recompute writes: the recompute
 * changes none of them.
 */
export async function assertCountersMatchRows(db: Kysely<Database>) {
  const stored = await storedCounters(db)
  const counted = await countedFromRows(db)
  for (const table of ['questions', 'comments', 'users'] as const) {
    const expected = new Map(counted[table].map((row: any) => [row.id, row]))
    const differing = stored[table].filter((row) => JSON.stringify(row) !== JSON.stringify(expected.get(row.id)))
    assert.deepEqual(
      differing.map((row) => ({ stored: row, counted: expected.get(row.id) })),
      [],
      `stored ${table} counters equal the raw rows`,
    )
    assert.equal(stored[table].length, counted[table].length)
  }
  await recomputeStatistics(db)
  assert.deepEqual(await storedCounters(db), stored, 'the recompute changes no counter')
}

export const commentCount = async (db: Kysely<Database>, questionId: number) =>
  db
    .selectFrom('questions')
    .select(['count_comments', 'count_comments_info', 'count_comments_reason', 'count_comments_suggestion'])
    .where('id', '=', questionId)
    .executeTakeFirstOrThrow()

export const userCounters = async (db: Kysely<Database>, userId: number) =>
  db.selectFrom('users').select(['count_comments', 'count_comment_votes']).where('id', '=', userId).executeTakeFirstOrThrow()
