import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { resolvePage, type ListRequest, type RowsPage } from '../../db/paging.ts'

export const ACTIVITY_KINDS = ['question', 'answer', 'comment'] as const
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]
/** In this order, the reason an item shows when it has several. */
export const REASONS = ['followed_tag', 'group', 'followed_user', 'my_question'] as const
export type Reason = (typeof REASONS)[number]

export interface ActivityRow {
  kind: ActivityKind
  id: number
  created_at: Date
  reason: Reason
  question_id: number
  question_text: string
  value: number | null
  choice_id: number | null
  comment_text: string | null
  tag_id: number | null
  tag_text: string | null
  group_id: number | null
  group_name: string | null
  actor_id: number
  actor_username: string
  actor_first_name: string
  actor_last_name: string
  actor_photo: string | null
  total: number
}

export interface ActivityFilters {
  kinds: readonly ActivityKind[]
  since: Date | null
}

/**
 * A page of the caller's feed and its total. The page statement carries the total; it is counted apart (a page of
 * one row) only for `page=last` or past the end.
 */
export async function activityPage(
  db: Kysely<Database>,
  userId: number,
  filters: ActivityFilters,
  list: ListRequest,
): Promise<RowsPage<ActivityRow>> {
  const totalOf = async () => Number((await activityRows(db, userId, filters, 1, 0))[0]?.total ?? 0)
  const page = resolvePage(list.page, list.page.last ? await totalOf() : 0)
  const rows = await activityRows(db, userId, filters, page.size, page.offset)
  const count = rows.length ? Number(rows[0].total) : page.offset > 0 ? await totalOf() : 0
  return { page, count, rows }
}

/**
 * The caller's feed, one page and its total in one statement. Each source is a branch of a UNION ALL reading
 * through the caller's follows and memberships; a question reached twice keeps its first reason. Only public things: published questions, public answers that are not skips,
 * comments not hidden, by active accounts other than the caller.
 */
async function activityRows(
  db: Kysely<Database>,
  userId: number,
  filters: ActivityFilters,
  limit: number,
  offset: number,
): Promise<ActivityRow[]> {
  const since = filters.since ? sql`AND x.created_at >= ${filters.since}` : sql``
  const none = sql`NULL::integer AS value, NULL::integer AS choice_id, NULL::text AS comment_text`
  const noTag = sql`NULL::integer AS tag_id`
  const noGroup = sql`NULL::integer AS group_id`
  const branches: Record<ActivityKind, ReturnType<typeof sql>[]> = {
    question: [
      sql`SELECT 'question'::text AS kind, q.id, q.created_at, 0 AS priority, 'followed_tag'::text AS reason, q.id AS question_id, q.user_id AS actor_id,
            ${none}, qt.tag_id, ${noGroup}
          FROM following_tags ft JOIN question_tags qt ON qt.tag_id = ft.tag_id JOIN questions q ON q.id = qt.question_id
          WHERE ft.user_id = ${userId} AND q.publish`,
      sql`SELECT 'question', q.id, q.created_at, 1, 'group', q.id, q.user_id, ${none}, ${noTag}, gqc.group_id
          FROM group_memberships gm JOIN group_question_connections gqc ON gqc.group_id = gm.group_id AND gqc.active
          JOIN questions q ON q.id = gqc.question_id
          WHERE gm.user_id = ${userId} AND q.publish`,
      sql`SELECT 'question', q.id, q.created_at, 2, 'followed_user', q.id, q.user_id, ${none}, ${noTag}, ${noGroup}
          FROM following_users f JOIN questions q ON q.user_id = f.following_id
          WHERE f.user_id = ${userId} AND q.publish`,
    ],
    answer: [
      sql`SELECT 'answer'::text AS kind, v.id, v.created_at, 2 AS priority, 'followed_user'::text AS reason, v.question_id, v.user_id AS actor_id,
            v.value::integer AS value, NULL::integer AS choice_id, NULL::text AS comment_text, ${noTag}, ${noGroup}
          FROM following_users f JOIN question_votes v ON v.user_id = f.following_id JOIN questions q ON q.id = v.question_id
          WHERE f.user_id = ${userId} AND NOT v.private AND NOT v.skipped AND q.publish`,
      sql`SELECT 'answer'::text AS kind, v.id, v.created_at, 2 AS priority, 'followed_user'::text AS reason, v.question_id, v.user_id AS actor_id,
            NULL::integer AS value, v.choice_id, NULL::text AS comment_text, ${noTag}, ${noGroup}
          FROM following_users f JOIN question_choice_votes v ON v.user_id = f.following_id JOIN questions q ON q.id = v.question_id
          WHERE f.user_id = ${userId} AND NOT v.private AND NOT v.skipped AND q.publish`,
    ],
    comment: [
      sql`SELECT 'comment'::text AS kind, c.id, c.created_at, 3 AS priority, 'my_question'::text AS reason, c.question_id, c.user_id AS actor_id,
            NULL::integer AS value, NULL::integer AS choice_id, c.text AS comment_text, ${noTag}, ${noGroup}
          FROM questions q JOIN comments c ON c.question_id = q.id
          WHERE q.user_id = ${userId} AND NOT c.is_hidden`,
    ],
  }
  // Only questions can be reached for several reasons: they are deduplicated on their own.
  const parts = filters.kinds.flatMap((kind) =>
    kind === 'question'
      ? [
          sql`SELECT * FROM (SELECT DISTINCT ON (id) * FROM (${sql.join(branches.question, sql` UNION ALL `)}) d ORDER BY id, priority) questions`,
        ]
      : branches[kind],
  )
  const union = sql.join(parts, sql` UNION ALL `)
  const { rows } = await sql<ActivityRow>`
    SELECT x.*, q.question AS question_text, t.text AS tag_text, g.name AS group_name,
      u.username AS actor_username, u.first_name AS actor_first_name, u.last_name AS actor_last_name, u.photo AS actor_photo,
      count(*) OVER () AS total
    FROM (${union}) x
    JOIN questions q ON q.id = x.question_id
    JOIN users u ON u.id = x.actor_id AND u.is_active AND NOT u.is_deleted AND u.id <> ${userId}
    LEFT JOIN tags t ON t.id = x.tag_id
    LEFT JOIN groups g ON g.id = x.group_id
    WHERE true ${since}
    ORDER BY x.created_at DESC, x.kind, x.id DESC
    LIMIT ${limit} OFFSET ${offset}`.execute(db)
  return rows
}
