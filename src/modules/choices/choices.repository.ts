import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { publishedFigureOrdering } from '../questions/published-ordering.ts'
import type { ChoiceRow } from '../questions/questions.repository.ts'

/** Store numbers step down by way of this free range, as (question, store_number) is unique at every row. */
const RENUMBER_OFFSET = 1_000_000

const CHOICE_ORDERING = orderingFieldsOf(['id', 'text', 'store_number', 'created_at', 'modified_at'], 'question_choices')

export interface ChoiceFilters {
  question?: number
  id?: number
}

/** The SQL of the choices of multiple-choice questions. */
export function choicesRepository(db: Db) {
  return {
    /** Choices of the questions the caller may see (published ones, their own, or every one for staff). */
    visible(filters: ChoiceFilters, caller: Caller | null) {
      let query = db.selectFrom('question_choices').innerJoin('questions', 'questions.id', 'question_choices.question_id')
      if (!caller?.isStaff) {
        query = query.where((eb) =>
          caller
            ? eb.or([eb('questions.publish', '=', true), eb('questions.user_id', '=', caller.id)])
            : eb('questions.publish', '=', true),
        )
      }
      if (filters.question !== undefined) query = query.where('question_choices.question_id', '=', filters.question)
      if (filters.id !== undefined) query = query.where('question_choices.id', '=', filters.id)
      return query
    },

    /** A page of the visible choices; figure orderings sort on the published figures (k = MIN_CELL_SIZE). */
    async page(filters: ChoiceFilters, caller: Caller | null, list: ListRequest, k: number): Promise<RowsPage<ChoiceRow>> {
      const ordering = orderingTerms(
        list.ordering,
        { ...CHOICE_ORDERING, ...publishedFigureOrdering('choice', k) },
        ['question', 'store_number'],
        column('question_choices.id'),
        (name) => (name === 'question' ? column('question_choices.question_id') : null),
      )
      return pageOfRows<ChoiceRow>(list, this.visible(filters, caller), (q) => q.selectAll('question_choices'), ordering)
    },

    async visibleOne(id: number, caller: Caller | null) {
      return this.visible({ id }, caller).selectAll('question_choices').executeTakeFirst()
    },

    /** The author of the choice's question, when the caller may see it. */
    async authorOf(id: number, caller: Caller | null) {
      return (await this.visible({ id }, caller).select('questions.user_id').executeTakeFirst())?.user_id
    },

    async questionOf(id: number, caller: Caller | null) {
      return this.visible({ id }, caller).select('question_choices.question_id').executeTakeFirst()
    },

    /** A new last choice of the question. */
    async add(questionId: number, text: string) {
      return db
        .insertInto('question_choices')
        .values({
          question_id: questionId,
          text,
          store_number: sql<number>`(SELECT coalesce(max(store_number) + 1, 0) FROM question_choices WHERE question_id = ${questionId})`,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    async find(id: number) {
      return db.selectFrom('question_choices').select(['id', 'question_id', 'text']).where('id', '=', id).executeTakeFirst()
    },

    async row(id: number) {
      return db.selectFrom('question_choices').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    },

    /** Whether anyone chose it. */
    async answered(id: number): Promise<boolean> {
      return db.selectFrom('question_choice_votes').select('id').where('choice_id', '=', id).limit(1).executeTakeFirst().then(Boolean)
    },

    async reword(id: number, text: string) {
      return db
        .updateTable('question_choices')
        .set({ text, modified_at: sql`now()` })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    async countOf(questionId: number): Promise<number> {
      const { n } = await db
        .selectFrom('question_choices')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('question_id', '=', questionId)
        .executeTakeFirstOrThrow()
      return Number(n)
    },

    /** Removes the choice; the later ones step down so that store numbers stay 0..n-1. */
    async remove(id: number, questionId: number): Promise<void> {
      const removed = await db.deleteFrom('question_choices').where('id', '=', id).returning('store_number').executeTakeFirstOrThrow()
      const later = db.updateTable('question_choices').where('question_id', '=', questionId)
      await later
        .set({ store_number: sql`store_number + ${RENUMBER_OFFSET}` })
        .where('store_number', '>', removed.store_number)
        .execute()
      await later
        .set({ store_number: sql`store_number - ${RENUMBER_OFFSET + 1}` })
        .where('store_number', '>=', RENUMBER_OFFSET)
        .execute()
    },
  }
}
