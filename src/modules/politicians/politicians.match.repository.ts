import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { answered, comparable, compareRepository, type DistanceRow } from '../compare/compare.repository.ts'
import { questionVisibleSql } from '../../access/question-access.ts'

/**
 * The SQL of matching a person with politicians (docs/politicians.md). It differs from compare.repository.ts in
 * whose answers count: a politician's answers are public by nature, so every non-skipped answer of a
 * politician's account counts, private or not; the person's own private answers count only when the caller is
 * that person.
 */

/** One question that separates the person (a) from a politician's account (b), with both answers. */
export interface SeparatingRow {
  user_id: number
  question_id: number
  text: string
  subtype: string
  distance: number
  a_value: number | null
  a_choice: number | null
  a_choice_text: string | null
  b_value: number | null
  b_choice: number | null
  b_choice_text: string | null
}

/** A politician's answers that count: every one not skipped. */
const politicianAnswer = answered('b')

/** The person's countable answers, read once (MATERIALIZED) and matched with the accounts' answers by question. */
const personAnswers = (userId: number, viewer: number | null) => sql`
  mine_likert AS MATERIALIZED (
    SELECT a.question_id, a.value FROM question_votes a WHERE a.user_id = ${userId}::int AND ${comparable('a', viewer)}
  ),
  mine_choice AS MATERIALIZED (
    SELECT a.question_id, a.choice_id FROM question_choice_votes a WHERE a.user_id = ${userId}::int AND ${comparable('a', viewer)}
  )`

/** The accounts compared with: distinct, without the person (nobody is compared with themselves). */
const accountsOf = (userId: number, others: readonly number[]) => [...new Set(others)].filter((id) => id !== userId)

export function politicianMatchRepository(db: Kysely<Database>) {
  return {
    /**
     * The distance histogram of `userId` against each politician account of `others`: the comparisons'
     * statement with every answer of the accounts counting. Accounts with no common question are absent.
     */
    async distanceHistograms(viewer: number | null, userId: number, others: readonly number[]): Promise<DistanceRow[]> {
      return compareRepository(db).distanceHistograms(viewer, userId, others, 'every')
    },

    /**
     * Per politician account, the `limit` common questions at distance 2 or more that the caller may see, largest
     * distance first, then lowest question id (the rule of separatingAndAgreeing): one statement for any number
     * of accounts, cut per account in SQL so that a long shared history never travels whole.
     */
    async separatingQuestions(caller: Caller | null, userId: number, others: readonly number[], limit: number): Promise<SeparatingRow[]> {
      const ids = accountsOf(userId, others)
      if (ids.length === 0 || limit <= 0) return []
      const { rows } = await sql<SeparatingRow>`
        WITH ${personAnswers(userId, caller?.id ?? null)},
        common AS (
          SELECT b.user_id, a.question_id, abs(a.value - b.value)::int AS distance, a.value AS a_value,
            NULL::int AS a_choice, b.value AS b_value, NULL::int AS b_choice
          FROM mine_likert a JOIN question_votes b ON b.question_id = a.question_id
          WHERE b.user_id = ANY(${ids}::int4[]) AND ${politicianAnswer} AND abs(a.value - b.value) >= 2
          UNION ALL
          SELECT b.user_id, a.question_id, 4, NULL, a.choice_id, NULL, b.choice_id
          FROM mine_choice a JOIN question_choice_votes b ON b.question_id = a.question_id
          WHERE b.user_id = ANY(${ids}::int4[]) AND ${politicianAnswer} AND a.choice_id <> b.choice_id
        ),
        ranked AS (
          SELECT c.*, q.question AS text, q.subtype,
            row_number() OVER (PARTITION BY c.user_id ORDER BY c.distance DESC, c.question_id) AS place
          FROM common c JOIN questions q ON q.id = c.question_id
          WHERE ${questionVisibleSql(caller, 'q')}
        )
        SELECT r.user_id, r.question_id, r.text, r.subtype, r.distance, r.a_value, r.a_choice, ac.text AS a_choice_text,
          r.b_value, r.b_choice, bc.text AS b_choice_text
        FROM ranked r
        LEFT JOIN question_choices ac ON ac.id = r.a_choice
        LEFT JOIN question_choices bc ON bc.id = r.b_choice
        WHERE r.place <= ${limit}::int
        ORDER BY r.user_id, r.place`.execute(db)
      return rows.map((row) => ({
        ...row,
        user_id: Number(row.user_id),
        question_id: Number(row.question_id),
        distance: Number(row.distance),
        a_value: row.a_value === null ? null : Number(row.a_value),
        b_value: row.b_value === null ? null : Number(row.b_value),
      }))
    },
  }
}
