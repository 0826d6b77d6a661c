import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../db/types.ts'

/**
 * The statements behind `recomputeStatistics` (recompute.ts): the counts grouped from the raw rows, the
 * write of the likert figures that differ, and one refresh per table of counters.
 */

export interface LikertSource {
  table: string
  /** Rows of (key, d1..d5, dskip) and, with liquid, (l1..l5, lskip) grouped by the target id. */
  source: RawBuilder<unknown>
  liquid: boolean
}

/** The counters kept on each user row: recomputed here, compared by check. */
export const USER_COUNTERS = [
  'count_questions',
  'count_comments',
  'count_comment_votes',
  'count_group_memberships',
  'count_following_tags',
  'count_following_users',
  'count_followers',
  'count_friends',
  'public_count_comment_votes',
]

/** The answer counters and times kept beside each user row (migration 051): recomputed here, compared by check. */
export const USER_ANSWER_COUNTERS = [
  'count_votes',
  'count_question_votes',
  'count_choice_votes',
  'last_answer_time',
  'public_count_votes',
  'public_count_question_votes',
  'public_count_choice_votes',
  'public_last_answer_time',
] as const

/** count(*) per level and of skips; with a weight column, the summed weights instead. */
function levelCounts(prefix: 'd' | 'l', weight: string | null, skipped: string | null): string {
  const measure = weight ? `sum(${weight})` : 'count(*)'
  const levels = [1, 2, 3, 4, 5].map((v) => `coalesce(${measure} FILTER (WHERE value = ${v}), 0) AS ${prefix}${v}`)
  const skips = skipped ? `coalesce(${measure} FILTER (WHERE ${skipped}), 0)` : '0'
  return [...levels, `${skips} AS ${prefix}skip`].join(', ')
}

export function likertSources(): LikertSource[] {
  const withLiquid = (table: string, key: string) =>
    sql.raw(`SELECT ${key} AS key, ${levelCounts('d', null, 'skipped')}, ${levelCounts('l', 'liquid_weight', 'skipped')}
      FROM ${table} GROUP BY ${key}`)
  const directOnly = (table: string, key: string) =>
    sql.raw(`SELECT ${key} AS key, ${levelCounts('d', null, null)} FROM ${table} GROUP BY ${key}`)
  return [
    { table: 'questions', source: withLiquid('question_votes', 'question_id'), liquid: true },
    { table: 'question_choices', source: withLiquid('question_choice_votes', 'choice_id'), liquid: true },
    { table: 'question_tags', source: directOnly('question_tag_votes', 'question_tag_id'), liquid: false },
    { table: 'question_links', source: directOnly('question_link_votes', 'link_id'), liquid: false },
    {
      table: 'question_question_connections',
      source: directOnly('question_question_connection_votes', 'connection_id'),
      liquid: false,
    },
  ]
}

/** A row of counts grouped by target id: id, d1..d5, dskip (and l1..l5, lskip), stored_<column> for each column. */
export type CountRow = Record<string, number>

/** Every row of the source's table with the counts behind it and its stored `columns`, in id order. */
export async function likertCountRows(db: Db, target: LikertSource, columns: string[]): Promise<CountRow[]> {
  const shorts: ('d' | 'l')[] = target.liquid ? ['d', 'l'] : ['d']
  const selected = [
    ...shorts.flatMap((s) => [1, 2, 3, 4, 5, 'skip'].map((suffix) => `coalesce(s.${s}${suffix}, 0) AS ${s}${suffix}`)),
    ...columns.map((c) => `t.${c} AS stored_${c}`),
  ]
  const { rows } = await sql<CountRow>`SELECT t.id, ${sql.raw(selected.join(', '))}
    FROM ${sql.raw(target.table)} t LEFT JOIN (${target.source}) s ON s.key = t.id
    ORDER BY t.id`.execute(db)
  return rows
}

const CHUNK = 20_000

/** Writes `arrays[i]` (one count per id) into `columns[i]` of the rows `ids`, in chunks. */
export async function storeLikertColumns(db: Db, table: string, columns: string[], ids: number[], arrays: number[][]): Promise<void> {
  const assignments = columns.map((c) => `${c} = u.${c}`).join(', ')
  for (let start = 0; start < ids.length; start += CHUNK) {
    const params = [
      sql`${ids.slice(start, start + CHUNK)}::int4[]`,
      ...columns.map((_, i) => sql`${arrays[i].slice(start, start + CHUNK)}::int4[]`),
    ]
    await sql`UPDATE ${sql.raw(table)} t SET ${sql.raw(assignments)}
      FROM unnest(${sql.join(params)}) AS u(id, ${sql.raw(columns.join(', '))})
      WHERE t.id = u.id`.execute(db)
  }
}

/**
 * One UPDATE per table: `fresh` is a SELECT of (id, column...) covering every row of the table;
 * only rows whose stored values differ are written.
 */
function refresh(table: string, columns: readonly string[], fresh: string): RawBuilder<unknown> {
  const assignments = columns.map((c) => `${c} = f.${c}`).join(', ')
  const stored = columns.map((c) => `t.${c}`).join(', ')
  const computed = columns.map((c) => `f.${c}`).join(', ')
  return sql.raw(`UPDATE ${table} t SET ${assignments} FROM (${fresh}) f
    WHERE t.id = f.id AND (${stored}) IS DISTINCT FROM (${computed})`)
}

/** Per question with an unreleased change, the likert answers it holds beyond its release (migration 043). */
const UNRELEASED_VOTES = `SELECT question_id, unreleased_vote_count(question_id) AS n FROM (SELECT DISTINCT question_id FROM unreleased_answers) d`

/** The counter refreshes, one statement each, in the order they run. */
export function counterRefreshes(): ((db: Db) => Promise<unknown>)[] {
  return counterStatements().map((statement) => (db) => statement.execute(db))
}

function counterStatements(): RawBuilder<unknown>[] {
  return [
    refresh(
      'questions',
      ['count_comments', 'count_comments_info', 'count_comments_reason', 'count_comments_suggestion', 'unreleased_votes_count'],
      `SELECT q.id, coalesce(c.n, 0) AS count_comments, coalesce(c.info, 0) AS count_comments_info,
         coalesce(c.reason, 0) AS count_comments_reason, coalesce(c.suggestion, 0) AS count_comments_suggestion,
         coalesce(u.n, 0) AS unreleased_votes_count
       FROM questions q
       LEFT JOIN (${UNRELEASED_VOTES}) u ON u.question_id = q.id
       LEFT JOIN (
         SELECT question_id, count(*) AS n,
           count(*) FILTER (WHERE subtype = 'info') AS info,
           count(*) FILTER (WHERE subtype = 'reason') AS reason,
           count(*) FILTER (WHERE subtype = 'suggestion') AS suggestion
         FROM comments WHERE NOT is_hidden GROUP BY question_id) c ON c.question_id = q.id`,
    ),
    refresh(
      'comments',
      ['direct_maximum', 'direct_minimum', 'public_direct_maximum', 'public_direct_minimum', 'report_count'],
      `SELECT c.id, coalesce(v.up, 0) AS direct_maximum, coalesce(v.down, 0) AS direct_minimum,
         coalesce(v.public_up, 0) AS public_direct_maximum, coalesce(v.public_down, 0) AS public_direct_minimum,
         coalesce(r.n, 0) AS report_count
       FROM comments c
       LEFT JOIN (SELECT comment_id, count(*) FILTER (WHERE value = 5) AS up, count(*) FILTER (WHERE value = 1) AS down,
           count(*) FILTER (WHERE value = 5 AND NOT private) AS public_up, count(*) FILTER (WHERE value = 1 AND NOT private) AS public_down
         FROM comment_votes WHERE active GROUP BY comment_id) v ON v.comment_id = c.id
       LEFT JOIN (SELECT comment_id, count(*) AS n FROM comment_reports GROUP BY comment_id) r ON r.comment_id = c.id`,
    ),
    refresh(
      'users',
      USER_COUNTERS,
      `SELECT u.id,
         coalesce(q.n, 0) AS count_questions,
         coalesce(c.n, 0) AS count_comments,
         coalesce(kv.n, 0) AS count_comment_votes,
         coalesce(gm.n, 0) AS count_group_memberships,
         coalesce(ft.n, 0) AS count_following_tags,
         coalesce(fu.n, 0) AS count_following_users,
         coalesce(fo.n, 0) AS count_followers,
         coalesce(fr.n, 0) AS count_friends,
         coalesce(kv.public_n, 0) AS public_count_comment_votes
       FROM users u
       LEFT JOIN (SELECT user_id, count(*) AS n FROM questions GROUP BY user_id) q ON q.user_id = u.id
       LEFT JOIN (SELECT user_id, count(*) AS n FROM comments GROUP BY user_id) c ON c.user_id = u.id
       LEFT JOIN (SELECT user_id, count(*) AS n, count(*) FILTER (WHERE NOT private) AS public_n
         FROM comment_votes WHERE active GROUP BY user_id) kv ON kv.user_id = u.id
       LEFT JOIN (SELECT user_id, count(*) AS n FROM group_memberships GROUP BY user_id) gm ON gm.user_id = u.id
       LEFT JOIN (SELECT user_id, count(*) AS n FROM following_tags GROUP BY user_id) ft ON ft.user_id = u.id
       LEFT JOIN (SELECT user_id, count(*) AS n FROM following_users GROUP BY user_id) fu ON fu.user_id = u.id
       LEFT JOIN (SELECT following_id, count(*) AS n FROM following_users GROUP BY following_id) fo
         ON fo.following_id = u.id
       LEFT JOIN (SELECT person, count(*) AS n FROM (
           SELECT user_id AS person FROM friendships WHERE accepted_at IS NOT NULL
           UNION ALL SELECT friend_id FROM friendships WHERE accepted_at IS NOT NULL) f GROUP BY person) fr
         ON fr.person = u.id`,
    ),
    refresh(
      'user_answer_counts',
      USER_ANSWER_COUNTERS,
      `SELECT a.id,
         coalesce(qv.n, 0) + coalesce(cv.n, 0) AS count_votes,
         coalesce(qv.n, 0) AS count_question_votes,
         coalesce(cv.n, 0) AS count_choice_votes,
         greatest(qv.last, cv.last) AS last_answer_time,
         coalesce(qv.public_n, 0) + coalesce(cv.public_n, 0) AS public_count_votes,
         coalesce(qv.public_n, 0) AS public_count_question_votes,
         coalesce(cv.public_n, 0) AS public_count_choice_votes,
         greatest(qv.public_last, cv.public_last) AS public_last_answer_time
       FROM user_answer_counts a
       LEFT JOIN (SELECT user_id, count(*) AS n, max(modified_at) AS last,
           count(*) FILTER (WHERE NOT private) AS public_n, max(modified_at) FILTER (WHERE NOT private) AS public_last
         FROM question_votes GROUP BY user_id) qv
         ON qv.user_id = a.id
       LEFT JOIN (SELECT user_id, count(*) AS n, max(modified_at) AS last,
           count(*) FILTER (WHERE NOT private) AS public_n, max(modified_at) FILTER (WHERE NOT private) AS public_last
         FROM question_choice_votes GROUP BY user_id) cv
         ON cv.user_id = a.id`,
    ),
    refresh(
      'tags',
      ['followers_count', 'questions_count', 'votes_count', 'unreleased_votes_count'],
      `SELECT t.id, coalesce(f.n, 0) AS followers_count, coalesce(c.questions, 0) AS questions_count,
         coalesce(c.votes, 0) AS votes_count, coalesce(c.unreleased, 0) AS unreleased_votes_count
       FROM tags t
       LEFT JOIN (SELECT tag_id, count(*) AS n FROM following_tags GROUP BY tag_id) f ON f.tag_id = t.id
       LEFT JOIN (
         SELECT carrying.tag_id, count(*) AS questions, coalesce(sum(v.n), 0) AS votes, coalesce(sum(u.n), 0) AS unreleased
         FROM (SELECT tag_id, question_id FROM question_tags
               UNION SELECT topic_id, id FROM questions WHERE topic_id IS NOT NULL) carrying
         LEFT JOIN (SELECT question_id, count(*) AS n FROM question_votes GROUP BY question_id) v
           ON v.question_id = carrying.question_id
         LEFT JOIN (${UNRELEASED_VOTES}) u ON u.question_id = carrying.question_id
         GROUP BY carrying.tag_id) c ON c.tag_id = t.id`,
    ),
    refresh(
      'areas',
      ['members_count', 'question_count'],
      `SELECT a.id, coalesce(m.n, 0) AS members_count, coalesce(q.n, 0) AS question_count
       FROM areas a
       LEFT JOIN (SELECT area_id, count(*) AS n FROM user_geos GROUP BY area_id) m ON m.area_id = a.id
       LEFT JOIN (SELECT geo_id, count(*) AS n FROM questions WHERE geo_id IS NOT NULL GROUP BY geo_id) q
         ON q.geo_id = a.id`,
    ),
    refresh(
      'groups',
      ['member_count'],
      `SELECT g.id, coalesce(m.n, 0) AS member_count
       FROM groups g LEFT JOIN (SELECT group_id, count(*) AS n FROM group_memberships GROUP BY group_id) m
         ON m.group_id = g.id`,
    ),
    refresh(
      'question_collections',
      ['question_count', 'item_count'],
      `SELECT c.id, coalesce(i.questions, 0) AS question_count, coalesce(i.items, 0) AS item_count
       FROM question_collections c LEFT JOIN (
         SELECT parent_id, count(*) FILTER (WHERE type = 'Q') AS questions, count(*) AS items
         FROM question_collection_items GROUP BY parent_id) i ON i.parent_id = c.id`,
    ),
  ]
}
