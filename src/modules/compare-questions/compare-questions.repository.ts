import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'

/** The only SQL of compare_questions. */

export interface ComparedQuestionRow {
  id: number
  user_id: number
  publish: boolean
  subtype: string
  question: string
}

export interface ChoiceRow {
  id: number
  question_id: number
  text: string
}

/** One cell of the cross-tabulation: a rating (likert) or a choice id (mcq) of each question, and its people. */
export interface CrossTabRow {
  a: number
  b: number
  count: number
}

/** A question's current answers that are not skips, as (user_id, category): the rating, or the choice picked. */
const answersOf = (question: { id: number; subtype: string }) =>
  question.subtype === 'mcq'
    ? sql`(SELECT user_id, choice_id AS category FROM question_choice_votes WHERE question_id = ${question.id} AND value IS NOT NULL)`
    : sql`(SELECT user_id, value::int AS category FROM question_votes WHERE question_id = ${question.id} AND value IS NOT NULL)`

export function compareQuestionsRepository(db: Kysely<Database>) {
  return {
    /** Both questions in one statement (either may be missing). */
    async questions(ids: number[]): Promise<ComparedQuestionRow[]> {
      return db.selectFrom('questions').select(['id', 'user_id', 'publish', 'subtype', 'question']).where('id', 'in', ids).execute()
    },

    /** The choices of the given questions, each question's in its order. */
    async choices(questionIds: number[]): Promise<ChoiceRow[]> {
      return db
        .selectFrom('question_choices')
        .select(['id', 'question_id', 'text'])
        .where('question_id', 'in', questionIds)
        .orderBy('question_id')
        .orderBy('store_number')
        .orderBy('id')
        .execute()
    },

    /**
     * People per (answer to a, answer to b), over the people who answered both: one GROUP BY over the join of the
     * two questions' answers by user (one current answer per user and question, so each person counts once).
     * Private answers count like the others: only the counts leave.
     */
    async crossTab(a: { id: number; subtype: string }, b: { id: number; subtype: string }): Promise<CrossTabRow[]> {
      const { rows } = await sql<CrossTabRow>`
        SELECT answers_a.category AS a, answers_b.category AS b, count(*)::int AS count
        FROM ${answersOf(a)} AS answers_a
        JOIN ${answersOf(b)} AS answers_b ON answers_b.user_id = answers_a.user_id
        GROUP BY 1, 2`.execute(db)
      return rows
    },
  }
}
