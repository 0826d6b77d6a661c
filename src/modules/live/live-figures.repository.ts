import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { statisticsColumns } from '../../engines/statistics/statistics-fields.ts'
import type { PublishedFigures } from '../../disclosure/figures.ts'
import type { Caller } from '../../core/caller.ts'
import { loadPublishedFigures } from '../questions/published-figures.ts'
import { questionsRepository } from '../questions/questions.repository.ts'

/** The figures a question's detail shows, for itself and each choice: both families and polarisation. */
export const FIGURE_COLUMNS = [...statisticsColumns('direct'), ...statisticsColumns('liquid'), 'polarisation'] as const

export type FiguresRow = Record<(typeof FIGURE_COLUMNS)[number], number> & { id: number }
export type QuestionFiguresRow = FiguresRow & { user_id: number; publish: boolean }
export type ChoiceFiguresRow = FiguresRow & { question_id: number; text: string; store_number: number }

/** Every statement of the live streams: a flush runs at most five, however many questions and subscribers. */
export function liveFiguresRepository(db: Kysely<Database>, minCellSize: number) {
  return {
    /** The figures everyone sees (src/disclosure/figures.ts), in place of the stored ones the other reads carry. */
    async published(ids: number[]): Promise<PublishedFigures> {
      return loadPublishedFigures(db, ids, minCellSize)
    },

    async questions(ids: number[]): Promise<QuestionFiguresRow[]> {
      if (ids.length === 0) return []
      return (await db
        .selectFrom('questions')
        .select(['id', 'user_id', 'publish', ...FIGURE_COLUMNS] as never)
        .where('id', 'in', ids)
        .execute()) as unknown as QuestionFiguresRow[]
    },

    async choices(questionIds: number[]): Promise<ChoiceFiguresRow[]> {
      if (questionIds.length === 0) return []
      return (await db
        .selectFrom('question_choices')
        .select(['id', 'question_id', 'text', 'store_number', ...FIGURE_COLUMNS] as never)
        .where('question_id', 'in', questionIds)
        .orderBy('question_id')
        .orderBy('store_number')
        .orderBy('id')
        .execute()) as unknown as ChoiceFiguresRow[]
    },

    /**
     * The question items of each collection in the collection's order; a collection that no longer exists is
     * absent, one without questions has a row with a null question.
     */
    async collectionQuestions(collectionIds: number[]): Promise<{ collection_id: number; question_id: number | null }[]> {
      if (collectionIds.length === 0) return []
      return db
        .selectFrom('question_collections as c')
        .leftJoin('question_collection_items as i', (join) => join.onRef('i.parent_id', '=', 'c.id').on('i.question_id', 'is not', null))
        .select(['c.id as collection_id', 'i.question_id'])
        .where('c.id', 'in', collectionIds)
        .orderBy('c.id')
        .orderBy('i.order')
        .orderBy('i.id')
        .execute()
    },

    /** Which of the collections hold which of the questions. */
    async holding(collectionIds: number[], questionIds: number[]): Promise<{ parent_id: number; question_id: number }[]> {
      if (collectionIds.length === 0 || questionIds.length === 0) return []
      return (await db
        .selectFrom('question_collection_items')
        .select(['parent_id', sql<number>`question_id`.as('question_id')])
        .where('parent_id', 'in', collectionIds)
        .where('question_id', 'in', questionIds)
        .execute()) as { parent_id: number; question_id: number }[]
    },

    /** Whether the caller may follow the question: there for them as its detail is. */
    async questionVisible(id: number, caller: Caller | null): Promise<boolean> {
      return (await questionsRepository(db).filtered({ id }, caller).select('questions.id').executeTakeFirst()) !== undefined
    },

    async collectionExists(id: number): Promise<boolean> {
      return (await db.selectFrom('question_collections').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    },
  }
}

export type LiveFiguresRepository = ReturnType<typeof liveFiguresRepository>
