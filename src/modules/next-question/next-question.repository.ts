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

  /**
   * Questions the user has not answered: no likert answer or skip, no choice answer or skip. Two NOT EXISTS,
   * which PostgreSQL runs as anti-joins on the (question_id, user_id) indexes of both answer tables.
   */
  function unanswered<Q extends ReturnType<typeof matching>>(query: Q, userId: number): Q {
    return query
      .where((eb) => eb.not(eb.exists(eb.selectFrom('question_votes as qv').select(sql.lit(1).as('one')).whereRef('qv.question_id', '=', 'questions.id').where('qv.user_id', '=', userId))))
      .where((eb) => eb.not(eb.exists(eb.selectFrom('question_choice_votes as qcv').select(sql.lit(1).as('one')).whereRef('qcv.question_id', '=', 'questions.id').where('qcv.user_id', '=', userId)))) as Q
  }

  /** count and unanswered in one statement; for anonymous callers every question is unanswered. */
  function countsQuery(filters: NextQuestionFilters, caller: Caller | null) {
    const all = matching(filters, caller).select((eb) => eb.fn.countAll<string>().as('n'))
    if (!caller) return db.selectFrom(all.as('matching')).select(['matching.n as count', 'matching.n as unanswered'])
    const open = unanswered(matching(filters, caller), caller.id).select((eb) => eb.fn.countAll<string>().as('n'))
    return db.selectNoFrom([all.as('count'), open.as('unanswered')])
  }

  /** The next unanswered questions; `collectionOrder` names a collection whose item order leads. */
  function nextQuery(filters: NextQuestionFilters, caller: Caller | null, ordering: OrderTerm[], limit: number, collectionOrder: number | null) {
    const query = caller ? unanswered(matching(filters, caller), caller.id) : matching(filters, caller)
    let selected = query.select(LIGHT_COLUMNS)
    if (collectionOrder !== null) {
      selected = selected
        .innerJoin('question_collection_items as item', (join) => join.onRef('item.question_id', '=', 'questions.id').on('item.parent_id', '=', collectionOrder))
        .orderBy('item.order')
        .orderBy('item.id') as never
    }
    for (const term of ordering) selected = selected.orderBy(term.expression, term.direction)
    return selected.limit(limit)
  }

  return {
    countsQuery,
    nextQuery,

    async counts(filters: NextQuestionFilters, caller: Caller | null): Promise<{ count: number; unanswered: number }> {
      const row = await countsQuery(filters, caller).executeTakeFirstOrThrow()
      return { count: Number(row.count), unanswered: Number(row.unanswered) }
    },

    async next(filters: NextQuestionFilters, caller: Caller | null, ordering: OrderTerm[], limit: number, collectionOrder: number | null) {
      return (await nextQuery(filters, caller, ordering, limit, collectionOrder).execute()) as unknown as LightRow[]
    },
  }
}
