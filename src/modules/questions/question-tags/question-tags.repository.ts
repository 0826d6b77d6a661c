import { sql, type Kysely, type Selectable } from 'kysely'
import { shownTagVotes } from '../../tags/tag-votes-count.ts'
import type { Database, QuestionTags, Tags } from '../../../db/database.ts'
import type { Caller } from '../../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import { iso } from '../../../core/time.ts'
import { statisticsColumns } from '../../../engines/statistics/statistics-fields.ts'
import type { UrlBuilder } from '../../../core/urls.ts'
import { questionVisibleSql } from '../../../access/question-access.ts'
import { publishedFigureOrdering } from '../published-ordering.ts'
import type { QuestionTagItem, QuestionTagListQuery } from './question-tags.schemas.ts'

const DIRECT = statisticsColumns('direct')
const QUESTION_TAG_ORDERING = orderingFieldsOf(['id', 'position', 'created_at', 'modified_at'], 'question_tags')

/** QUESTION_TAG_ORDERING with the figure fields, which sort on the published figures (k = MIN_CELL_SIZE). */
const questionTagOrdering = (k: number) => ({ ...QUESTION_TAG_ORDERING, ...publishedFigureOrdering('question_tag', k) })

const TAG_COLUMNS = ['tags.text', 'tags.followers_count', 'tags.questions_count', shownTagVotes().as('votes_count')] as const

export function questionTagsRepository(db: Kysely<Database>) {
  return {
    /** Tags of the questions the caller may see, each with its tag. */
    filtered(filters: QuestionTagListQuery, caller: Caller | null) {
      let query = db
        .selectFrom('question_tags')
        .innerJoin('questions', 'questions.id', 'question_tags.question_id')
        .innerJoin('tags', 'tags.id', 'question_tags.tag_id')
        .where(questionVisibleSql(caller))
      if (filters.question !== undefined) query = query.where('question_tags.question_id', '=', filters.question)
      if (filters.tag !== undefined) query = query.where('question_tags.tag_id', '=', filters.tag)
      if (filters.id !== undefined) query = query.where('question_tags.id', '=', filters.id)
      return query
    },

    /** A page of the visible question-tags; figure orderings sort on the published figures (k = MIN_CELL_SIZE). */
    async page(filters: QuestionTagListQuery, caller: Caller | null, list: ListRequest, k: number): Promise<RowsPage<QuestionTagRow>> {
      const ordering = orderingTerms(list.ordering, questionTagOrdering(k), ['question', 'position'], column('question_tags.id'), (name) =>
        name === 'question' ? column('question_tags.question_id') : name === 'tag' ? column('question_tags.tag_id') : null,
      )
      return pageOfRows<QuestionTagRow>(
        list,
        this.filtered(filters, caller),
        (q) => q.selectAll('question_tags').select(TAG_COLUMNS),
        ordering,
      )
    },

    async find(id: number, caller: Caller | null): Promise<QuestionTagRow | undefined> {
      return this.filtered({ id }, caller).selectAll('question_tags').select(TAG_COLUMNS).executeTakeFirst()
    },

    async owner(id: number, caller: Caller | null): Promise<number | undefined> {
      return (await this.filtered({ id }, caller).select('questions.user_id').executeTakeFirst())?.user_id
    },
  }
}

export type QuestionTagRow = Selectable<QuestionTags> &
  Pick<Selectable<Tags>, 'text' | 'followers_count' | 'questions_count' | 'votes_count'>

/** Writes on one question's tags inside the caller's transaction (the question row locked). */
export function questionTagWrites(trx: Kysely<Database>) {
  return {
    async find(id: number) {
      return trx.selectFrom('question_tags').select(['id', 'question_id', 'tag_id']).where('id', '=', id).executeTakeFirst()
    },

    async tagExists(tagId: number): Promise<boolean> {
      return (await trx.selectFrom('tags').select('id').where('id', '=', tagId).executeTakeFirst()) !== undefined
    },

    /** A new tag goes last; on a question without a topic it becomes the topic. */
    async add(question: { id: number; topic_id: number | null }, tagId: number): Promise<number> {
      const becomesTopic = question.topic_id === null || question.topic_id === tagId
      const row = await trx
        .insertInto('question_tags')
        .values({
          question_id: question.id,
          tag_id: tagId,
          position: becomesTopic
            ? 0
            : sql<number>`(SELECT coalesce(max(position), 0) + 1 FROM question_tags WHERE question_id = ${question.id})`,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      if (question.topic_id === null) await trx.updateTable('questions').set({ topic_id: tagId }).where('id', '=', question.id).execute()
      return row.id
    },

    /** Removes a tag; when it was the topic, the next tag in order becomes the topic (or none is left). */
    async remove(question: { id: number; topic_id: number | null }, questionTag: { id: number; tag_id: number }): Promise<void> {
      await trx.deleteFrom('question_tags').where('id', '=', questionTag.id).execute()
      if (question.topic_id !== questionTag.tag_id) return
      const next = await trx
        .selectFrom('question_tags')
        .select(['id', 'tag_id'])
        .where('question_id', '=', question.id)
        .orderBy('position')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst()
      if (next) await trx.updateTable('question_tags').set({ position: 0 }).where('id', '=', next.id).execute()
      await trx
        .updateTable('questions')
        .set({ topic_id: next?.tag_id ?? null })
        .where('id', '=', question.id)
        .execute()
    },
  }
}

export function toQuestionTagItem(row: QuestionTagRow, urls: UrlBuilder): QuestionTagItem {
  const statistics = Object.fromEntries(DIRECT.map((name) => [name, row[name as keyof QuestionTagRow]]))
  return {
    id: row.id,
    url: urls.detail('question_tags', row.id),
    question: row.question_id,
    tag: {
      id: row.tag_id,
      text: row.text,
      followers_count: row.followers_count,
      questions_count: row.questions_count,
      votes_count: row.votes_count,
    },
    position: row.position,
    ...statistics,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  } as QuestionTagItem
}
