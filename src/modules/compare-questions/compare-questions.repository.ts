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

/**
 * One cell of the cross-tabulation: a rating (likert) or a choice id (mcq) of each question, and its people: those
 * whose two answers are public, and those with a private answer to either (a private pair).
 */
export interface CrossTabRow {
  a: number
  b: number
  public: number
  private: number
}

/** A question's current answers that are not skips, as (user_id, category, private): the rating, or the choice picked. */
const answersOf = (question: { id: number; subtype: string }) =>
  question.subtype === 'mcq'
    ? sql`(SELECT user_id, choice_id AS category, private FROM released_choice_votes WHERE question_id = ${question.id} AND value IS NOT NULL)`
    : sql`(SELECT user_id, value::int AS category, private FROM released_question_votes WHERE question_id = ${question.id} AND value IS NOT NULL)`

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
     * Pairs with a private answer are counted apart: what of them is shown is decided in compare-questions.disclosure.ts.
     */
    async crossTab(a: { id: number; subtype: string }, b: { id: number; subtype: string }): Promise<CrossTabRow[]> {
      const { rows } = await sql<CrossTabRow>`
        SELECT answers_a.category AS a, answers_b.category AS b,
          count(*) FILTER (WHERE NOT (answers_a.private OR answers_b.private))::int AS "public",
          count(*) FILTER (WHERE answers_a.private OR answers_b.private)::int AS "private"
        FROM ${answersOf(a)} AS answers_a
        JOIN ${answersOf(b)} AS answers_b ON answers_b.user_id = answers_a.user_id
        GROUP BY 1, 2`.execute(db)
      return rows
    },
  }
}
