import { sql, type Kysely } from 'kysely'
import { pendingDirectAnswers } from '../../db/answer-gate.ts'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { questionVisibleSql } from '../../access/question-access.ts'

/** A question as survey_results shows it. */
export interface SurveyQuestionRow {
  id: number
  question: string
  subtype: string
}

/** One choice of a multiple-choice question with its current picks and skips, public and private apart. */
export interface ChoiceCountRow {
  id: number
  question_id: number
  text: string
  count: number
  skipped: number
  private_count: number
  private_skipped: number
}

/**
 * Current answers of a question, likert and choice, skips included: "most answered". From the stored figures the
 * write path keeps exact (the question's own family for likert answers, its choices' families for picks, with the
 * deltas not yet folded), so that
 * ordering every question costs no scan of the answers.
 */
const ANSWER_COUNT = sql<number>`(questions.direct_vote_count + questions.direct_skipped + COALESCE((
  SELECT sum(question_choices.direct_vote_count + question_choices.direct_skipped) FROM question_choices
  WHERE question_choices.question_id = questions.id), 0) + ${pendingDirectAnswers(sql`questions.id`, true)})`

/** The ordering fields; answer_count counts what survey results publish (private answers from the k-th). */
const surveyOrdering = (k: number): OrderingFields => ({
  id: column('questions.id'),
  created_at: column('questions.created_at'),
  answer_count: sql`(${ANSWER_COUNT} - withheld_answer_count(questions.id, ${k}::integer))`,
})

/** All the SQL of survey_results: one statement each, whatever the number of questions or answers. */
export function surveyResultsRepository(db: Kysely<Database>) {
  return {
    /** Any collection: collections have no draft state; the questions inside them follow the question rule. */
    async collection(id: number) {
      return db.selectFrom('question_collections').select(['id', 'name']).where('id', '=', id).executeTakeFirst()
    },

    /** The collection's questions the caller may see (others' drafts left out, as the items listing does), in item order. */
    async collectionQuestions(caller: Caller | null, collectionId: number): Promise<SurveyQuestionRow[]> {
      return db
        .selectFrom('question_collection_items')
        .innerJoin('questions', 'questions.id', 'question_collection_items.question_id')
        .select(['questions.id', 'questions.question', 'questions.subtype'])
        .where('question_collection_items.parent_id', '=', collectionId)
        .where('question_collection_items.type', '=', 'Q')
        .where(questionVisibleSql(caller))
        .orderBy('question_collection_items.order')
        .orderBy('question_collection_items.id')
        .execute()
    },

    /** A page of every question the caller may see, most answered first unless ordered otherwise (k: MIN_CELL_SIZE). */
    async page(caller: Caller | null, k: number, list: ListRequest): Promise<RowsPage<SurveyQuestionRow>> {
      const ordering = orderingTerms(list.ordering, surveyOrdering(k), ['-answer_count'], column('questions.id'))
      return pageOfRows<SurveyQuestionRow>(
        list,
        db.selectFrom('questions').where(questionVisibleSql(caller)),
        (q) => q.select(['questions.id', 'questions.question', 'questions.subtype']),
        ordering,
      )
    },

    /** Every choice of the questions in their order, with its current picks and skips, public and private apart. */
    async choiceCounts(questionIds: number[]): Promise<ChoiceCountRow[]> {
      if (questionIds.length === 0) return []
      const { rows } = await sql<ChoiceCountRow>`
        SELECT question_choices.id, question_choices.question_id, question_choices.text,
          count(question_choice_votes.id) FILTER (WHERE NOT question_choice_votes.skipped AND NOT question_choice_votes.private)::int AS count,
          count(question_choice_votes.id) FILTER (WHERE question_choice_votes.skipped AND NOT question_choice_votes.private)::int AS skipped,
          count(question_choice_votes.id) FILTER (WHERE NOT question_choice_votes.skipped AND question_choice_votes.private)::int AS private_count,
          count(question_choice_votes.id) FILTER (WHERE question_choice_votes.skipped AND question_choice_votes.private)::int AS private_skipped
        FROM question_choices
        LEFT JOIN released_choice_votes AS question_choice_votes ON question_choice_votes.choice_id = question_choices.id
        WHERE question_choices.question_id = ANY(${questionIds}::int4[])
        GROUP BY question_choices.id
        ORDER BY question_choices.question_id, question_choices.store_number, question_choices.id`.execute(db)
      return rows.map((row) => ({
        ...row,
        id: Number(row.id),
        question_id: Number(row.question_id),
        count: Number(row.count),
        skipped: Number(row.skipped),
        private_count: Number(row.private_count),
        private_skipped: Number(row.private_skipped),
      }))
    },
  }
}
