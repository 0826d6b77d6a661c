import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../../db/database.ts'
import { AGE_SQL } from './age-bands.ts'

/** The only SQL of the breakdowns: each one a single GROUP BY over the raw answers or people. */

/** Age at answering, in whole years (UTC dates); null without a date of birth. */
const AGE_AT_ANSWER = sql.raw(AGE_SQL('users.dob', "answers.created_at AT TIME ZONE 'UTC'"))
/** Age today (UTC). */
const AGE_TODAY = sql.raw(AGE_SQL('users.dob', "now() AT TIME ZONE 'UTC'"))

export interface AnswerCellRow {
  age: number | null
  gender: number
  value: number | null
  choice_id: number | null
  choice_text: string | null
  count: number
}

export interface PeopleCellRow {
  age: number | null
  gender: number
  count: number
}

export interface AreaCellRow {
  area_id: number
  name: string
  code: string
  m_type: string
  parent_id: number | null
  latitude: number
  longitude: number
  choice_id: number | null
  choice_text: string | null
  value: number | null
  count: number
}

export interface QuestionLookup {
  id: number
  user_id: number
  publish: boolean
  subtype: string
}

/** The question whose answers are read: a multiple-choice question's are its choice answers, any other's its ratings. */
export interface AnsweredQuestion {
  id: number
  subtype: string
}

/**
 * A question's current answers with the answering user as `answers.user_id`, read from the one table its kind
 * answers in, in user order from the covering index (no heap page when the table is settled).
 */
const answersOf = (question: AnsweredQuestion) =>
  question.subtype === 'mcq'
    ? sql`(SELECT user_id, value, choice_id, created_at FROM question_choice_votes WHERE question_id = ${question.id})`
    : sql`(SELECT user_id, value, NULL::int AS choice_id, created_at FROM question_votes WHERE question_id = ${question.id})`

export interface AnswerFilters {
  group?: number
  geo?: number
}

function respondentConditions(filters: AnswerFilters): RawBuilder<unknown> {
  const conditions: RawBuilder<unknown>[] = [sql`true`]
  if (filters.group !== undefined)
    conditions.push(
      sql`EXISTS (SELECT 1 FROM group_memberships WHERE group_memberships.user_id = users.id AND group_memberships.group_id = ${filters.group})`,
    )
  if (filters.geo !== undefined)
    conditions.push(sql`EXISTS (SELECT 1 FROM user_geos WHERE user_geos.user_id = users.id AND user_geos.area_id = ${filters.geo})`)
  return sql.join(conditions, sql` AND `)
}

export function demographicsRepository(db: Kysely<Database>) {
  return {
    async question(id: number): Promise<QuestionLookup | undefined> {
      return db.selectFrom('questions').select(['id', 'user_id', 'publish', 'subtype']).where('id', '=', id).executeTakeFirst()
    },

    /** Which of the named group and area exist, in one statement. */
    async filterTargets(filters: AnswerFilters): Promise<{ group: boolean; geo: boolean }> {
      const { rows } = await sql<{ group: boolean; geo: boolean }>`
        SELECT EXISTS (SELECT 1 FROM groups WHERE id = ${filters.group ?? null}::int) AS "group",
               EXISTS (SELECT 1 FROM areas WHERE id = ${filters.geo ?? null}::int) AS geo`.execute(db)
      return rows[0]
    },

    /** Answers per (age at answering, gender, rating, choice). */
    async answerCells(question: AnsweredQuestion, filters: AnswerFilters): Promise<AnswerCellRow[]> {
      const { rows } = await sql<AnswerCellRow>`
        WITH cells AS (
          SELECT ${AGE_AT_ANSWER} AS age, users.gender, answers.value, answers.choice_id, count(*)::int AS count
          FROM ${answersOf(question)} AS answers
          JOIN users ON users.id = answers.user_id
          WHERE ${respondentConditions(filters)}
          GROUP BY 1, 2, 3, 4
        )
        SELECT cells.age, cells.gender, cells.value, cells.choice_id, question_choices.text AS choice_text, cells.count
        FROM cells LEFT JOIN question_choices ON question_choices.id = cells.choice_id`.execute(db)
      return rows
    },

    /** Active people per (age today, gender), optionally of one area. */
    async peopleCells(geo: number | undefined): Promise<PeopleCellRow[]> {
      const { rows } = await sql<PeopleCellRow>`
        SELECT ${AGE_TODAY} AS age, users.gender, count(*)::int AS count
        FROM users
        WHERE users.is_active AND NOT users.is_deleted AND ${respondentConditions({ geo })}
        GROUP BY 1, 2`.execute(db)
      return rows
    },

    /**
     * Answers per (area, choice, rating). A respondent's areas are their user_geos rows and their country, region
     * and district; each counts once in each of their areas. One pass over the answers: each brings its user's
     * areas (deduplicated per user), and names and texts are joined to the few cells left after grouping.
     */
    async areaCells(question: AnsweredQuestion): Promise<AreaCellRow[]> {
      const { rows } = await sql<AreaCellRow>`
        WITH cells AS (
          SELECT place.area_id, answers.choice_id, answers.value, count(*)::int AS count
          FROM ${answersOf(question)} AS answers
          JOIN users ON users.id = answers.user_id
          CROSS JOIN LATERAL (
            SELECT users.country_id UNION SELECT users.region_id UNION SELECT users.district_id
            UNION SELECT user_geos.area_id FROM user_geos WHERE user_geos.user_id = answers.user_id
          ) AS place(area_id)
          WHERE place.area_id IS NOT NULL
          GROUP BY 1, 2, 3
        )
        SELECT areas.id AS area_id, areas.name, areas.code, areas.m_type, areas.parent_id, areas.latitude, areas.longitude,
               cells.choice_id, question_choices.text AS choice_text, cells.value, cells.count
        FROM cells
        JOIN areas ON areas.id = cells.area_id
        LEFT JOIN question_choices ON question_choices.id = cells.choice_id
        ORDER BY areas.id, cells.choice_id, cells.value`.execute(db)
      return rows
    },

    async choices(questionId: number): Promise<{ id: number; text: string }[]> {
      return db.selectFrom('question_choices').select(['id', 'text']).where('question_id', '=', questionId).orderBy('id').execute()
    },
  }
}
