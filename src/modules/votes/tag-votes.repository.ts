import type { Insertable, Selectable, Updateable } from 'kysely'
import type { QuestionTagVotes } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type AnySelect, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { tallyColumns } from '../../engines/figures/figures.repository.ts'
import { tallyFromRow, type Tally } from '../../engines/statistics/tally.ts'
import type { TagVoteRow } from './votes.mapper.ts'
import type { TagVoteListQuery } from './votes.schemas.ts'
import { untyped, type Db } from '../../db/types.ts'

export const TAG_VOTE_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at', 'modified_at', 'value'], 'question_tag_votes'),
  object_id: column('question_tag_votes.question_tag_id'),
  question_tag: column('question_tag_votes.question_tag_id'),
  question: column('question_tags.question_id'),
  tag: column('question_tags.tag_id'),
  user: column('question_tag_votes.user_id'),
}

export interface LockedQuestionTag {
  id: number
  question_id: number
  tag_id: number
  publish: boolean
  user_id: number
  tally: Tally
}

/** The row columns the mapper reads. */
const selectRow = (query: AnySelect): AnySelect =>
  query.selectAll('question_tag_votes').select(['question_tags.question_id', 'question_tags.tag_id'])

export function tagVotesRepository(db: Db) {
  const withTag = (row: Selectable<QuestionTagVotes>, questionTag: { question_id: number; tag_id: number }): TagVoteRow => ({
    ...row,
    question_id: questionTag.question_id,
    tag_id: questionTag.tag_id,
  })
  return {
    /** The question-tag row locked for the rest of the transaction, with its question's visibility. */
    async lockQuestionTag(id: number): Promise<LockedQuestionTag | undefined> {
      const row = await untyped(db)
        .selectFrom('question_tags')
        .innerJoin('questions', 'questions.id', 'question_tags.question_id')
        .select(['question_tags.id', 'question_tags.question_id', 'question_tags.tag_id', 'questions.publish', 'questions.user_id'])
        .select(tallyColumns('question_tags').map((name) => `question_tags.${name}`))
        .where('question_tags.id', '=', id)
        .forUpdate('question_tags')
        .executeTakeFirst()
      return row ? ({ ...row, tally: tallyFromRow(row, false) } as LockedQuestionTag) : undefined
    },

    async current(userId: number, questionTagId: number) {
      return db
        .selectFrom('question_tag_votes')
        .selectAll()
        .where('user_id', '=', userId)
        .where('question_tag_id', '=', questionTagId)
        .forUpdate()
        .executeTakeFirst()
    },

    async findById(id: number) {
      return db.selectFrom('question_tag_votes').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async lockById(id: number) {
      return db.selectFrom('question_tag_votes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    async insert(values: Insertable<QuestionTagVotes>, questionTag: LockedQuestionTag): Promise<TagVoteRow> {
      return withTag(await db.insertInto('question_tag_votes').values(values).returningAll().executeTakeFirstOrThrow(), questionTag)
    },

    async update(id: number, values: Updateable<QuestionTagVotes>, questionTag: LockedQuestionTag): Promise<TagVoteRow> {
      return withTag(
        await db.updateTable('question_tag_votes').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),
        questionTag,
      )
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('question_tag_votes').where('id', '=', id).execute()
    },

    /** A page of the votes the caller may see (see `filtered`), newest first unless ordered otherwise. */
    async page(filters: TagVoteListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<TagVoteRow>> {
      const ordering = orderingTerms(list.ordering, TAG_VOTE_ORDERING, ['-created_at'], column('question_tag_votes.id'))
      return pageOfRows<TagVoteRow>(list, this.filtered(filters, caller), selectRow, ordering)
    },

    /** One vote, if the caller may see it. */
    async visible(id: number, caller: Caller | null): Promise<TagVoteRow | undefined> {
      return (await selectRow(this.filtered({}, caller).where('question_tag_votes.id', '=', id)).executeTakeFirst()) as
        TagVoteRow | undefined
    },

    /** Public votes, the caller's own, nothing on questions the caller may not see; staff see all. */
    filtered(filters: TagVoteListQuery, caller: Caller | null) {
      let query = db
        .selectFrom('question_tag_votes')
        .innerJoin('question_tags', 'question_tags.id', 'question_tag_votes.question_tag_id')
        .innerJoin('questions', 'questions.id', 'question_tags.question_id')
      if (!caller) {
        query = query.where('question_tag_votes.private', '=', false).where('questions.publish', '=', true)
      } else if (!caller.isStaff) {
        const own = caller.id
        query = query
          .where((eb) => eb.or([eb('question_tag_votes.private', '=', false), eb('question_tag_votes.user_id', '=', own)]))
          .where((eb) =>
            eb.or([eb('questions.publish', '=', true), eb('questions.user_id', '=', own), eb('question_tag_votes.user_id', '=', own)]),
          )
      }
      if (filters.object_id !== undefined) query = query.where('question_tag_votes.question_tag_id', '=', filters.object_id)
      if (filters.question_tag !== undefined) query = query.where('question_tag_votes.question_tag_id', '=', filters.question_tag)
      if (filters.question !== undefined) query = query.where('question_tags.question_id', '=', filters.question)
      if (filters.tag !== undefined) query = query.where('question_tags.tag_id', '=', filters.tag)
      if (filters.user !== undefined) query = query.where('question_tag_votes.user_id', '=', filters.user)
      return query
    },
  }
}
