import { type Insertable, type Selectable, type Updateable } from 'kysely'
import type { QuestionVotes } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type AnySelect, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { QuestionVoteListQuery } from './votes.schemas.ts'
import type { Db } from '../../db/types.ts'

export type QuestionVoteRow = Selectable<QuestionVotes>

export const QUESTION_VOTE_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at', 'modified_at', 'value'], 'question_votes'),
  object_id: column('question_votes.question_id'),
  question: column('question_votes.question_id'),
  user: column('question_votes.user_id'),
}

/** The row columns the mapper reads. */
const selectRow = (query: AnySelect): AnySelect => query.selectAll('question_votes')

export function questionVotesRepository(db: Db) {
  return {
    async findById(id: number): Promise<QuestionVoteRow | undefined> {
      return db.selectFrom('question_votes').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async lockById(id: number): Promise<QuestionVoteRow | undefined> {
      return db.selectFrom('question_votes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    /** The insert of an answer, returning it, not yet run (an answer's write runs it with the rest). */
    inserting(values: Insertable<QuestionVotes>) {
      return db.insertInto('question_votes').values(values).returningAll()
    },

    /** The update of an answer, returning it, not yet run. */
    updating(id: number, values: Updateable<QuestionVotes>) {
      return db.updateTable('question_votes').set(values).where('id', '=', id).returningAll()
    },

    async insert(values: Insertable<QuestionVotes>): Promise<QuestionVoteRow> {
      return this.inserting(values).executeTakeFirstOrThrow()
    },

    async update(id: number, values: Updateable<QuestionVotes>): Promise<QuestionVoteRow> {
      return this.updating(id, values).executeTakeFirstOrThrow()
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('question_votes').where('id', '=', id).execute()
    },

    /** Keeps an answer that is being replaced or withdrawn, as it was, with when that happened. */
    async archive(vote: QuestionVoteRow, replacedAt: Date): Promise<void> {
      await this.archiving(vote, replacedAt).execute()
    },

    /** The insert that keeps an answer in the history, not yet run. */
    archiving(vote: QuestionVoteRow, replacedAt: Date) {
      return db.insertInto('question_vote_history').values({
        question_id: vote.question_id,
        user_id: vote.user_id,
        value: vote.value,
        skipped: vote.skipped,
        importance: vote.importance,
        private: vote.private,
        answered_at: vote.modified_at,
        replaced_at: replacedAt,
      })
    },

    /** A page of the votes the caller may see (see `filtered`), newest first unless ordered otherwise. */
    async page(filters: QuestionVoteListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<QuestionVoteRow>> {
      const ordering = orderingTerms(list.ordering, QUESTION_VOTE_ORDERING, ['-created_at'], column('question_votes.id'))
      return pageOfRows<QuestionVoteRow>(list, this.filtered(filters, caller), selectRow, ordering)
    },

    /** One vote, if the caller may see it. */
    async visible(id: number, caller: Caller | null): Promise<QuestionVoteRow | undefined> {
      return (await selectRow(this.filtered({}, caller).where('question_votes.id', '=', id)).executeTakeFirst()) as
        QuestionVoteRow | undefined
    },

    /**
     * The listing's FROM and WHERE: public votes, the caller's own, and nothing on a question the caller
     * may not see (unpublished and not theirs); staff see every vote.
     */
    filtered(filters: QuestionVoteListQuery, caller: Caller | null) {
      let query = db.selectFrom('question_votes').innerJoin('questions', 'questions.id', 'question_votes.question_id')
      if (!caller) {
        query = query.where('question_votes.private', '=', false).where('questions.publish', '=', true)
      } else if (!caller.isStaff) {
        const own = caller.id
        query = query
          .where((eb) => eb.or([eb('question_votes.private', '=', false), eb('question_votes.user_id', '=', own)]))
          .where((eb) =>
            eb.or([eb('questions.publish', '=', true), eb('questions.user_id', '=', own), eb('question_votes.user_id', '=', own)]),
          )
      }
      if (filters.object_id !== undefined) query = query.where('question_votes.question_id', '=', filters.object_id)
      if (filters.question !== undefined) query = query.where('question_votes.question_id', '=', filters.question)
      if (filters.user !== undefined) query = query.where('question_votes.user_id', '=', filters.user)
      return query
    },
  }
}
