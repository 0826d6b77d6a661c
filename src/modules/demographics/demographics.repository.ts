import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { Database } from '../../db/database.ts'
import { AGE_BAND_SQL, AGE_SQL } from './age-bands.ts'

/** The only SQL of the breakdowns: each one a single GROUP BY over the raw answers or people. */

/** Age band at answering (UTC dates); null without a date of birth. */
const BAND_AT_ANSWER = sql.raw(AGE_BAND_SQL(AGE_SQL('users.dob', "answers.created_at AT TIME ZONE 'UTC'")))
/** Age today (UTC). */
const AGE_TODAY = sql.raw(AGE_SQL('users.dob', "now() AT TIME ZONE 'UTC'"))

export interface AnswerCellRow {
  band: number | null
  gender: number
  region: number | null
  private: boolean
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

/** One (place, age band, region, privacy, choice, rating) group; area_id null: the question itself (every answer once). */
export interface AreaCellRow {
  area_id: number | null
  band: number | null
  region: number | null
  private: boolean
  name: string | null
  code: string | null
  m_type: string | null
  parent_id: number | null
  latitude: number | null
  longitude: number | null
  choice_id: number | null
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
 * The current answers of questions of one kind, as the published figures count them (migration 038: private ones in
 * released batches), with the answering user as `answers.user_id`, read from the one table that kind answers in (a
 * multiple-choice question's are its choice answers, any other's its ratings).
 */
const answersOf = (mcq: boolean, questionIds: number[]) =>
  mcq
    ? sql`(SELECT question_id, user_id, value, choice_id, created_at, private FROM released_choice_votes
           WHERE question_id = ANY(${questionIds}::int[]))`
    : sql`(SELECT question_id, user_id, value, NULL::int AS choice_id, created_at, private FROM released_question_votes
           WHERE question_id = ANY(${questionIds}::int[]))`

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

/**
 * A population users make (members, declared locations) counts public answers only: two such populations that
 * differ by one person would otherwise differ by that person's answer.
 */
const publicOnly = (filters: AnswerFilters) =>
  filters.group !== undefined || filters.geo !== undefined ? sql`NOT answers.private` : sql`true`

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

    /** Answers per (age band at answering, gender, region, privacy, rating, choice). */
    async answerCells(question: AnsweredQuestion, filters: AnswerFilters): Promise<AnswerCellRow[]> {
      const { rows } = await sql<AnswerCellRow>`
        WITH cells AS (
          SELECT ${BAND_AT_ANSWER} AS band, users.gender, users.region_id AS region, answers.private, answers.value,
                 answers.choice_id, count(*)::int AS count
          FROM ${answersOf(question.subtype === 'mcq', [question.id])} AS answers
          JOIN users ON users.id = answers.user_id
          WHERE ${respondentConditions(filters)} AND ${publicOnly(filters)}
          GROUP BY 1, 2, 3, 4, 5, 6
        )
        SELECT cells.band, cells.gender, cells.region, cells.private, cells.value, cells.choice_id,
               question_choices.text AS choice_text, cells.count
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
     * Answers per (place, age band at answering, region, privacy, choice, rating); the place null is the question
     * itself. A public answer is in its author's user_geos areas and their country, region and district, each once;
     * a private one only in one line of nested areas (their region and its ancestors, their district when it lies
     * in that region, else their country), so that its areas are nested as the release tree assumes.
     */
    async areaCells(question: AnsweredQuestion): Promise<AreaCellRow[]> {
      return (await this.areaCellsOf(question.subtype === 'mcq', [question.id])).get(question.id) ?? []
    },

    /**
     * areaCells of several questions of one kind (choice or rating) in one statement, by question: the places
     * (lineage) are shared, the cells are grouped by question as well.
     */
    async areaCellsOf(mcq: boolean, questionIds: number[]): Promise<Map<number, AreaCellRow[]>> {
      const byQuestion = new Map<number, AreaCellRow[]>(questionIds.map((id) => [id, []]))
      if (questionIds.length === 0) return byQuestion
      const { rows } = await sql<AreaCellRow & { question_id: number }>`
        WITH RECURSIVE answers AS (
          SELECT answers.question_id, answers.user_id, answers.value, answers.choice_id, answers.private,
                 ${BAND_AT_ANSWER} AS band, users.country_id, users.region_id, users.district_id
          FROM ${answersOf(mcq, questionIds)} AS answers
          JOIN users ON users.id = answers.user_id
        ),
        lineage(region_id, area_id) AS (
          SELECT DISTINCT region_id, region_id FROM answers WHERE private AND region_id IS NOT NULL
          UNION
          SELECT lineage.region_id, areas.parent_id FROM lineage JOIN areas ON areas.id = lineage.area_id
          WHERE areas.parent_id IS NOT NULL
        ),
        cells AS (
          SELECT answers.question_id, place.area_id, answers.band, answers.region_id AS region, answers.private,
                 answers.choice_id, answers.value, count(*)::int AS count
          FROM answers
          CROSS JOIN LATERAL (
            SELECT 0
            UNION SELECT answers.country_id WHERE NOT answers.private OR answers.region_id IS NULL
            UNION SELECT answers.region_id WHERE NOT answers.private
            UNION SELECT answers.district_id WHERE NOT answers.private
              OR EXISTS (SELECT 1 FROM areas WHERE areas.id = answers.district_id AND areas.parent_id = answers.region_id)
            UNION SELECT user_geos.area_id FROM user_geos WHERE user_geos.user_id = answers.user_id AND NOT answers.private
            UNION SELECT lineage.area_id FROM lineage WHERE lineage.region_id = answers.region_id AND answers.private
          ) AS place(area_id)
          WHERE place.area_id IS NOT NULL
          GROUP BY 1, 2, 3, 4, 5, 6, 7
        )
        SELECT cells.question_id, NULLIF(cells.area_id, 0) AS area_id, cells.band, cells.region, cells.private,
               cells.choice_id, cells.value, cells.count, areas.name, areas.code, areas.m_type, areas.parent_id,
               areas.latitude, areas.longitude
        FROM cells LEFT JOIN areas ON areas.id = cells.area_id
        ORDER BY cells.question_id, cells.area_id, cells.choice_id, cells.value`.execute(db)
      for (const { question_id, ...row } of rows) byQuestion.get(question_id)!.push(row)
      return byQuestion
    },

    async choices(questionId: number): Promise<{ id: number; text: string }[]> {
      return db.selectFrom('question_choices').select(['id', 'text']).where('question_id', '=', questionId).orderBy('id').execute()
    },
  }
}
