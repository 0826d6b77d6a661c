import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../http/authentication.ts'
import { questionVisibleSql } from '../questions/question-access.ts'

/** One current likert answer of a question with what weighting needs of its author. */
export interface RespondentRow {
  /** 1..5, null for a skip. */
  value: number | null
  skipped: boolean
  created_at: Date
  dob: string | null
  region_id: number | null
}

/** The newest census record of an area: its population by single year of age 0..90 (90: 90 and over). */
export interface AreaCensusRow {
  area_id: number
  ages: number[]
}

/** All the SQL of the weighted results: three set-based statements per request, whatever the number of answers. */
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
     * Every current likert answer of the question (public and private alike: only aggregates leave the
     * service), with its author's date of birth and region.
     */
    async respondents(questionId: number): Promise<RespondentRow[]> {
      const { rows } = await sql<RespondentRow>`
        SELECT question_votes.value, question_votes.skipped, question_votes.created_at, users.dob, users.region_id
        FROM question_votes JOIN users ON users.id = question_votes.user_id
        WHERE question_votes.question_id = ${questionId}
        ORDER BY question_votes.id`.execute(db)
      return rows
    },

    /**
     * The newest census record (by date, then id; undated records last) of each region the question's
     * respondents live in.
     */
    async regionCensus(questionId: number): Promise<AreaCensusRow[]> {
      const { rows } = await sql<AreaCensusRow>`
        SELECT DISTINCT ON (census_data.area_id) census_data.area_id, census_data.ages
        FROM census_data
        WHERE census_data.area_id IN (
          SELECT users.region_id FROM question_votes JOIN users ON users.id = question_votes.user_id
          WHERE question_votes.question_id = ${questionId} AND users.region_id IS NOT NULL)
        ORDER BY census_data.area_id, census_data.date DESC NULLS LAST, census_data.id DESC`.execute(db)
      return rows.map((row) => ({ area_id: Number(row.area_id), ages: (row.ages ?? []).map(Number) }))
    },
  }
}

/** One current likert answer of one of several questions (weightingBatchRepository). */
export interface QuestionRespondentRow extends RespondentRow {
  question_id: number
}

/**
 * The same loading as weightingRepository's respondents and regionCensus for many questions at once: two
 * statements whatever the number of questions or answers (survey_results).
 */
export function weightingBatchRepository(db: Kysely<Database>) {
  return {
    /** Every current likert answer of the questions with its author's date of birth and region, by question then answer id. */
    async respondentsOf(questionIds: number[]): Promise<QuestionRespondentRow[]> {
      const { rows } = await sql<QuestionRespondentRow>`
        SELECT question_votes.question_id, question_votes.value, question_votes.skipped, question_votes.created_at,
          users.dob, users.region_id
        FROM question_votes JOIN users ON users.id = question_votes.user_id
        WHERE question_votes.question_id = ANY(${questionIds}::int4[])
        ORDER BY question_votes.question_id, question_votes.id`.execute(db)
      return rows
    },

    /** The newest census record (by date, then id; undated last) of each region the questions' respondents live in. */
    async regionCensusOf(questionIds: number[]): Promise<AreaCensusRow[]> {
      const { rows } = await sql<AreaCensusRow>`
        SELECT DISTINCT ON (census_data.area_id) census_data.area_id, census_data.ages
        FROM census_data
        WHERE census_data.area_id IN (
          SELECT users.region_id FROM question_votes JOIN users ON users.id = question_votes.user_id
          WHERE question_votes.question_id = ANY(${questionIds}::int4[]) AND users.region_id IS NOT NULL)
        ORDER BY census_data.area_id, census_data.date DESC NULLS LAST, census_data.id DESC`.execute(db)
      return rows.map((row) => ({ area_id: Number(row.area_id), ages: (row.ages ?? []).map(Number) }))
    },
  }
}
