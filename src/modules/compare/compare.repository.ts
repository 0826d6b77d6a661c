import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { questionVisibleSql } from '../../access/question-access.ts'
import type { Distances } from './compare.compute.ts'
import type { UserCompareQuery } from './compare.schemas.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderTerm } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'

/** One person's distance histogram against the person compared with. */
export interface DistanceRow {
  user_id: number
  distances: Distances
}

/** One question both people answered, with both answers and their distance. */
export interface CommonAnswerRow {
  question_id: number
  text: string
  subtype: string
  /** Whether the viewer may see the question itself (drafts count, but are not shown). */
  shown: boolean
  distance: number
  a_value: number | null
  a_choice: number | null
  a_choice_text: string | null
  b_value: number | null
  b_choice: number | null
  b_choice_text: string | null
}

/** A kept comparison (user_compares) as latest_compare, user_compare and compare_check read it. */
export interface ComparisonRow {
  id: number
  user_id: number
  other_id: number
  questions_counted: number
  difference_percent: number | null
  difference_distances: number[]
  created_at: Date
  modified_at: Date
}

/** A figure to keep for (user, other). */
export interface ComparisonFigures {
  other_id: number
  questions_counted: number
  difference_percent: number | null
  distances: Distances
}

/** Answers not skipped. `owner` is the table alias. */
export const answered = (owner: string) => sql`${sql.ref(`${owner}.value`)} IS NOT NULL`

/**
 * The answers a viewer may compare: current, not skipped, and public unless the viewer wrote them (a private
 * answer counts only in its author's own comparisons). `owner` is the table alias.
 */
export const comparable = (owner: string, viewer: number | null) =>
  viewer === null
    ? sql`${sql.ref(`${owner}.value`)} IS NOT NULL AND NOT ${sql.ref(`${owner}.private`)}`
    : sql`${sql.ref(`${owner}.value`)} IS NOT NULL AND (NOT ${sql.ref(`${owner}.private`)} OR ${sql.ref(`${owner}.user_id`)} = ${viewer}::int)`

/** Which of the others' answers count: those the viewer may compare, or every one not skipped. */
export type TheirAnswers = 'comparable' | 'every'

const USER_COMPARE_ORDERING = orderingFieldsOf(
  ['id', 'created_at', 'modified_at', 'questions_counted', 'difference_percent'],
  'user_compares',
)

/** A kept comparison's nullable percentage whose nulls (no common question) sort last in the given direction. */
export const nullsLast = (name: string, descending: boolean) =>
  sql`coalesce(${sql.ref(name)}, ${descending ? -1 : 101})` as unknown as OrderTerm['expression']

/** Who can be compared: accounts the users listing shows (active, or deleted and anonymised: their answers still count). */
const listedUser = sql`(users.is_active OR users.is_deleted)`

export function compareRepository(db: Kysely<Database>) {
  return {
    /** Which of these ids name a person who can be compared: one statement. */
    async existingUsers(ids: readonly number[]): Promise<Set<number>> {
      if (ids.length === 0) return new Set()
      const { rows } = await sql<{ id: number }>`
        SELECT id FROM users WHERE id = ANY(${[...new Set(ids)]}::int4[]) AND ${listedUser}`.execute(db)
      return new Set(rows.map((row) => Number(row.id)))
    },

    /**
     * The distance histogram of `userId` against each of `others`, as `viewer` may see their answers: one
     * statement whatever the number of others. The person's comparable answers are read once (materialized,
     * so the planner sees them as the small driving set); the others' answers to those questions come either
     * from the (question, user) covering index, one range per question with the others' ids as a hashed
     * filter (many others: no heap access), or from each other person's rows (a few others). Others with no
     * common question are absent. `theirs` says which of the others' answers count: those the viewer may
     * compare, or every one not skipped (politicians' accounts, public by nature; docs/politicians.md).
     */
    async distanceHistograms(
      viewer: number | null,
      userId: number,
      others: readonly number[],
      theirs: TheirAnswers = 'comparable',
    ): Promise<DistanceRow[]> {
      if (others.length === 0) return []
      const ids = [...new Set(others)].filter((id) => id !== userId)
      if (ids.length === 0) return []
      const counted = theirs === 'comparable' ? comparable('b', viewer) : answered('b')
      const { rows } = await sql<{ user_id: number; d0: number; d1: number; d2: number; d3: number; d4: number }>`
        WITH mine_likert AS MATERIALIZED (
          SELECT a.question_id, a.value FROM question_votes a WHERE a.user_id = ${userId} AND ${comparable('a', viewer)}
        ),
        mine_choice AS MATERIALIZED (
          SELECT a.question_id, a.choice_id FROM question_choice_votes a WHERE a.user_id = ${userId} AND ${comparable('a', viewer)}
        ),
        distances AS (
          SELECT b.user_id, abs(b.value - m.value) AS distance
          FROM mine_likert m JOIN question_votes b ON b.question_id = m.question_id
          WHERE b.user_id = ANY(${ids}::int4[]) AND ${counted}
          UNION ALL
          SELECT b.user_id, CASE WHEN b.choice_id = m.choice_id THEN 0 ELSE 4 END
          FROM mine_choice m JOIN question_choice_votes b ON b.question_id = m.question_id
          WHERE b.user_id = ANY(${ids}::int4[]) AND ${counted}
        )
        SELECT user_id,
          count(*) FILTER (WHERE distance = 0)::int AS d0, count(*) FILTER (WHERE distance = 1)::int AS d1,
          count(*) FILTER (WHERE distance = 2)::int AS d2, count(*) FILTER (WHERE distance = 3)::int AS d3,
          count(*) FILTER (WHERE distance = 4)::int AS d4
        FROM distances GROUP BY user_id ORDER BY user_id`.execute(db)
      return rows.map((row) => ({ user_id: Number(row.user_id), distances: [row.d0, row.d1, row.d2, row.d3, row.d4] }))
    },

    /**
     * Every question both people answered comparably, with both answers, the distance and the question's text:
     * one statement, one row per common question (a person answers a question at most once).
     */
    async commonAnswers(caller: Caller | null, userA: number, userB: number): Promise<CommonAnswerRow[]> {
      const viewer = caller?.id ?? null
      const { rows } = await sql<CommonAnswerRow>`
        WITH common AS (
          SELECT a.question_id, abs(a.value - b.value)::int AS distance, a.value AS a_value, NULL::int AS a_choice,
            b.value AS b_value, NULL::int AS b_choice
          FROM question_votes a JOIN question_votes b ON b.question_id = a.question_id AND b.user_id = ${userB}
          WHERE a.user_id = ${userA} AND ${comparable('a', viewer)} AND ${comparable('b', viewer)}
          UNION ALL
          SELECT a.question_id, CASE WHEN a.choice_id = b.choice_id THEN 0 ELSE 4 END, NULL, a.choice_id, NULL, b.choice_id
          FROM question_choice_votes a JOIN question_choice_votes b ON b.question_id = a.question_id AND b.user_id = ${userB}
          WHERE a.user_id = ${userA} AND ${comparable('a', viewer)} AND ${comparable('b', viewer)}
        )
        SELECT c.question_id, q.question AS text, q.subtype, ${questionVisibleSql(caller, 'q')} AS shown, c.distance,
          c.a_value, c.a_choice, ac.text AS a_choice_text, c.b_value, c.b_choice, bc.text AS b_choice_text
        FROM common c JOIN questions q ON q.id = c.question_id
        LEFT JOIN question_choices ac ON ac.id = c.a_choice
        LEFT JOIN question_choices bc ON bc.id = c.b_choice
        ORDER BY c.question_id`.execute(db)
      return rows.map((row) => ({ ...row, question_id: Number(row.question_id), shown: Boolean(row.shown) }))
    },

    /** The tags of these questions: one statement. */
    async tagsOf(questionIds: readonly number[]): Promise<{ question_id: number; tag_id: number; name: string }[]> {
      if (questionIds.length === 0) return []
      const { rows } = await sql<{ question_id: number; tag_id: number; name: string }>`
        SELECT qt.question_id, t.id AS tag_id, t.text AS name
        FROM question_tags qt JOIN tags t ON t.id = qt.tag_id
        WHERE qt.question_id = ANY(${[...questionIds]}::int4[])
        ORDER BY t.id, qt.question_id`.execute(db)
      return rows
    },

    /**
     * Keeps the figures of `userId`'s comparisons (one row per other person, the newest figures win): one
     * statement. Rows go in in other_id order, so two concurrent calls lock them in the same order.
     */
    async keep(userId: number, figures: readonly ComparisonFigures[]): Promise<void> {
      const rows = figures.filter((f) => f.other_id !== userId).sort((x, y) => x.other_id - y.other_id)
      if (rows.length === 0) return
      const column = (pick: (f: ComparisonFigures) => number) => rows.map(pick)
      await sql`
        INSERT INTO user_compares AS uc (user_id, other_id, questions_counted, difference_percent, difference_distances)
        SELECT ${userId}::int, f.other_id, f.counted, f.percent, ARRAY[f.d0, f.d1, f.d2, f.d3, f.d4]
        FROM unnest(${column((f) => f.other_id)}::int4[], ${column((f) => f.questions_counted)}::int4[],
          ${rows.map((f) => f.difference_percent)}::float8[], ${column((f) => f.distances[0])}::int4[],
          ${column((f) => f.distances[1])}::int4[], ${column((f) => f.distances[2])}::int4[],
          ${column((f) => f.distances[3])}::int4[], ${column((f) => f.distances[4])}::int4[])
          AS f (other_id, counted, percent, d0, d1, d2, d3, d4)
        ORDER BY f.other_id
        ON CONFLICT (user_id, other_id) DO UPDATE SET questions_counted = excluded.questions_counted,
          difference_percent = excluded.difference_percent, difference_distances = excluded.difference_distances,
          modified_at = now()`.execute(db)
    },

    /** The person's newest kept comparisons, newest first: one statement. */
    async latest(userId: number, limit: number): Promise<ComparisonRow[]> {
      return db
        .selectFrom('user_compares')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('modified_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute() as Promise<ComparisonRow[]>
    },

    /** A page of the person's kept comparisons (with one other person, if `other` is given), newest first unless ordered otherwise. */
    async page(filters: UserCompareQuery, userId: number, list: ListRequest): Promise<RowsPage<ComparisonRow>> {
      let query = db.selectFrom('user_compares').where('user_compares.user_id', '=', userId)
      if (filters.other !== undefined) query = query.where('user_compares.other_id', '=', filters.other)
      const ordering = orderingTerms(list.ordering, USER_COMPARE_ORDERING, ['-modified_at'], column('user_compares.id'))
      return pageOfRows<ComparisonRow>(list, query, (q) => q.selectAll('user_compares'), ordering)
    },

    /** The people the user has compared themselves with: friends (accepted, either direction) and trustees of live delegations. */
    async friendsAndTrustees(userId: number): Promise<{ user_id: number; relation: 'friend' | 'delegate' }[]> {
      const { rows } = await sql<{ user_id: number; relation: 'friend' | 'delegate' }>`
        SELECT DISTINCT x.user_id, x.relation FROM (
          SELECT CASE WHEN f.user_id = ${userId} THEN f.friend_id ELSE f.user_id END AS user_id, 'friend' AS relation
          FROM friendships f WHERE (f.user_id = ${userId} OR f.friend_id = ${userId}) AND f.accepted_at IS NOT NULL
          UNION ALL
          SELECT d.trustee_id, 'delegate' FROM tag_delegations d
          WHERE d.user_id = ${userId} AND d.revoked_at IS NULL AND d.trustee_id IS NOT NULL
          UNION ALL
          SELECT d.trustee_id, 'delegate' FROM question_delegations d
          WHERE d.user_id = ${userId} AND d.revoked_at IS NULL AND d.trustee_id IS NOT NULL
        ) x JOIN users ON users.id = x.user_id
        WHERE x.user_id <> ${userId} AND ${listedUser}
        ORDER BY x.user_id, x.relation DESC`.execute(db)
      return rows.map((row) => ({ user_id: Number(row.user_id), relation: row.relation }))
    },
  }
}
