import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { AGE_SQL } from '../demographics/age-bands.ts'
import { questionVisibleSql } from '../../access/question-access.ts'

/** Age when answering, in whole years, computed where the rows are (no date travels to be parsed). */
const AGE_AT_ANSWER = sql.raw(AGE_SQL('users.dob', "question_votes.created_at AT TIME ZONE 'UTC'"))

/**
 * The current likert answers of a question that share a rating, an age when answering and a region: weighting
 * tells such respondents apart by nothing else, so the rows are these groups, not the answers one by one.
 */
export interface RespondentRow {
  /** 1..5, null for a skip. */
  value: number | null
  /** Respondents in the group. */
  count: number
  /** Whole years when answering (AGE_SQL); null without a date of birth. */
  age: number | null
  region_id: number | null
  /** The answers are private (src/disclosure decides what of them counts). */
  private: boolean
}

/** The newest census record of an area: its population by single year of age 0..90 (90: 90 and over). */
export interface AreaCensusRow {
  area_id: number
  ages: number[]
}

/**
 * All the SQL of the weighted results: three set-based statements per request (the question, its answers, then the
 * census of their regions), whatever the number of answers.
 */
export function weightingRepository(db: Kysely<Database>) {
  return {
    /** The question if the caller may see it (published, theirs, or staff): the question visibility rule. */
    async visibleQuestion(caller: Caller | null, questionId: number) {
      return db
        .selectFrom('questions')
        .select(['questions.id', 'questions.subtype'])
        .where('questions.id', '=', questionId)
        .where(questionVisibleSql(caller))
        .executeTakeFirst()
    },

    /**
     * Every current likert answer of the question, grouped by rating, its author's age when answering and region,
     * and privacy (the service counts private answers only as the disclosure rules allow).
     */
    async respondents(questionId: number): Promise<RespondentRow[]> {
      const { rows } = await sql<RespondentRow>`
        SELECT question_votes.value, ${AGE_AT_ANSWER} AS age, users.region_id, question_votes.private, count(*)::int AS count
        FROM released_question_votes AS question_votes JOIN users ON users.id = question_votes.user_id
        WHERE question_votes.question_id = ${questionId}
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 2, 3, 4`.execute(db)
      return rows
    },

    /** The names of these areas, by id (a picture labels its regions with them). */
    async areaNames(areaIds: number[]): Promise<Map<number, string>> {
      if (areaIds.length === 0) return new Map()
      const rows = await db.selectFrom('areas').select(['id', 'name']).where('id', 'in', areaIds).execute()
      return new Map(rows.map((row) => [row.id, row.name]))
    },

    /** The newest census record (by date, then id; undated records last) of each of the regions. */
    async regionCensus(regionIds: number[]): Promise<AreaCensusRow[]> {
      const { rows } = await sql<AreaCensusRow>`
        SELECT DISTINCT ON (census_data.area_id) census_data.area_id, census_data.ages
        FROM census_data
        WHERE census_data.area_id = ANY(${regionIds}::int4[])
        ORDER BY census_data.area_id, census_data.date DESC NULLS LAST, census_data.id DESC`.execute(db)
      return rows.map((row) => ({ area_id: Number(row.area_id), ages: (row.ages ?? []).map(Number) }))
    },
  }
}

/** A group of respondents (RespondentRow) of one of several questions (weightingBatchRepository). */
export interface QuestionRespondentRow extends RespondentRow {
  question_id: number
}

/**
 * The same loading as weightingRepository's respondents for many questions at once: one statement whatever the
 * number of questions or answers (survey_results); their regions' census comes from regionCensus.
 */
export function weightingBatchRepository(db: Kysely<Database>) {
  return {
    /** The respondent groups of each of the questions, by question. */
    async respondentsOf(questionIds: number[]): Promise<QuestionRespondentRow[]> {
      const { rows } = await sql<QuestionRespondentRow>`
        SELECT question_votes.question_id, question_votes.value, ${AGE_AT_ANSWER} AS age, users.region_id,
               question_votes.private, count(*)::int AS count
        FROM released_question_votes AS question_votes JOIN users ON users.id = question_votes.user_id
        WHERE question_votes.question_id = ANY(${questionIds}::int4[])
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5`.execute(db)
      return rows
    },
  }
}
