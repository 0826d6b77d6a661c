import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../http/authentication.ts'
import type { OrderTerm } from '../../http/ordering.ts'
import { statisticsColumns } from '../../http/schemas.ts'
import { questionsRepository, type QuestionRow } from '../questions/questions.repository.ts'
import type { QuestionListQuery } from '../questions/questions.schemas.ts'

const LIGHT_NAMES = ['id', 'question', 'description', 'slug', 'subtype', ...statisticsColumns('liquid'), 'polarisation'] as const
const LIGHT_COLUMNS = LIGHT_NAMES.map((name) => `questions.${name}`) as 'questions.id'[]

/** A question row as the light form needs it: text, subtype, the liquid family and polarisation. */
export type LightRow = Pick<QuestionRow, 'id' | 'question' | 'description' | 'slug' | 'subtype' | 'polarisation'> & Record<string, number | string>

export interface NextQuestionFilters {
  questionFilters: QuestionListQuery
  exclude: number[]
}

export function nextQuestionRepository(db: Kysely<Database>) {
  /** What the query matches: the listing's filters, narrowed to published questions open for answers now. */
  function matching({ questionFilters, exclude }: NextQuestionFilters, caller: Caller | null) {
    let query = questionsRepository(db)
      .filtered(questionFilters, caller)
      .where('questions.publish', '=', true)
      .where(sql<boolean>`(questions.start_at IS NULL OR questions.start_at <= now())`)
      .where(sql<boolean>`(questions.end_at IS NULL OR questions.end_at > now())`)
    if (exclude.length) query = query.where('questions.id', 'not in', exclude)
    return query
  }

  /** Every question the user answered: a likert answer or skip, or any choice answer or skip. */
  const answeredIds = (userId: number) =>
    db.selectFrom('question_votes').select('question_votes.question_id').where('question_votes.user_id', '=', userId)
      .unionAll(db.selectFrom('question_choice_votes').select('question_choice_votes.question_id').where('question_choice_votes.user_id', '=', userId))

  return {
    /**
     * count and unanswered in one statement. The answered part is driven by the user's own answers (a semi-join),
     * so a new user costs nothing beyond the count and a heavy one a join against their answers.
     */
    async counts(filters: NextQuestionFilters, caller: Caller | null): Promise<{ count: number; unanswered: number }> {
      const all = matching(filters, caller).select((eb) => eb.fn.countAll<string>().as('n'))
      if (!caller) {
        const { n } = await all.executeTakeFirstOrThrow()
        return { count: Number(n), unanswered: Number(n) }
      }
      const answered = matching(filters, caller).where('questions.id', 'in', answeredIds(caller.id)).select((eb) => eb.fn.countAll<string>().as('n'))
      const row = await db.selectNoFrom([all.as('count'), answered.as('answered')]).executeTakeFirstOrThrow()
      const count = Number(row.count)
      return { count, unanswered: count - Number(row.answered) }
    },

    /**
     * The next unanswered questions: an anti-join on the (question_id, user_id) indexes of both answer tables.
     * `collectionOrder` names a collection whose item order leads.
     */
    async next(filters: NextQuestionFilters, caller: Caller | null, ordering: OrderTerm[], limit: number, collectionOrder: number | null) {
      let query = matching(filters, caller)
      if (caller) {
        const userId = caller.id
        query = query
          .where((eb) => eb.not(eb.exists(eb.selectFrom('question_votes as qv').select(sql.lit(1).as('one')).whereRef('qv.question_id', '=', 'questions.id').where('qv.user_id', '=', userId))))
          .where((eb) => eb.not(eb.exists(eb.selectFrom('question_choice_votes as qcv').select(sql.lit(1).as('one')).whereRef('qcv.question_id', '=', 'questions.id').where('qcv.user_id', '=', userId))))
      }
      let selected = query.select(LIGHT_COLUMNS)
      if (collectionOrder !== null) {
        selected = selected
          .innerJoin('question_collection_items as item', (join) => join.onRef('item.question_id', '=', 'questions.id').on('item.parent_id', '=', collectionOrder))
          .orderBy('item.order')
          .orderBy('item.id') as never
      }
      for (const term of ordering) selected = selected.orderBy(term.expression, term.direction)
      return (await selected.limit(limit).execute()) as unknown as LightRow[]
    },
  }
}
