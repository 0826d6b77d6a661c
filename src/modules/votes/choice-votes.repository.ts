import type { Insertable, Selectable, Updateable } from 'kysely'
import type { QuestionChoiceVotes } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type AnySelect, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { ChoiceVoteListQuery } from './votes.schemas.ts'
import type { Db } from '../../db/types.ts'

export type ChoiceVoteRow = Selectable<QuestionChoiceVotes>

export const CHOICE_VOTE_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at', 'modified_at', 'value'], 'question_choice_votes'),
  object_id: column('question_choice_votes.choice_id'),
  choice: column('question_choice_votes.choice_id'),
  question: column('question_choice_votes.question_id'),
  user: column('question_choice_votes.user_id'),
}

/** The row columns the mapper reads. */
const selectRow = (query: AnySelect): AnySelect => query.selectAll('question_choice_votes')

export function choiceVotesRepository(db: Db) {
  return {
    async findById(id: number): Promise<ChoiceVoteRow | undefined> {
      return db.selectFrom('question_choice_votes').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async lockById(id: number): Promise<ChoiceVoteRow | undefined> {
      return db.selectFrom('question_choice_votes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    /** The insert of a pick, returning it, not yet run (an answer's write runs it with the rest). */
    inserting(values: Insertable<QuestionChoiceVotes>) {
      return db.insertInto('question_choice_votes').values(values).returningAll()
    },

    /** The update of a pick, returning it, not yet run. */
    updating(id: number, values: Updateable<QuestionChoiceVotes>) {
      return db.updateTable('question_choice_votes').set(values).where('id', '=', id).returningAll()
    },

    async insert(values: Insertable<QuestionChoiceVotes>): Promise<ChoiceVoteRow> {
      return this.inserting(values).executeTakeFirstOrThrow()
    },

    async update(id: number, values: Updateable<QuestionChoiceVotes>): Promise<ChoiceVoteRow> {
      return this.updating(id, values).executeTakeFirstOrThrow()
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('question_choice_votes').where('id', '=', id).execute()
    },

    async archive(vote: ChoiceVoteRow, replacedAt: Date): Promise<void> {
      await this.archiving(vote, replacedAt).execute()
    },

    /** The insert that keeps a pick in the history, not yet run. */
    archiving(vote: ChoiceVoteRow, replacedAt: Date) {
      return db.insertInto('question_choice_vote_history').values({
        choice_id: vote.choice_id,
        question_id: vote.question_id,
        user_id: vote.user_id,
        value: vote.value,
        skipped: vote.skipped,
        private: vote.private,
        answered_at: vote.modified_at,
        replaced_at: replacedAt,
      })
    },

    /** A page of the votes the caller may see (see `filtered`), newest first unless ordered otherwise. */
    async page(filters: ChoiceVoteListQuery, caller: Caller | null, list: ListRequest): Promise<RowsPage<ChoiceVoteRow>> {
      const ordering = orderingTerms(list.ordering, CHOICE_VOTE_ORDERING, ['-created_at'], column('question_choice_votes.id'))
      return pageOfRows<ChoiceVoteRow>(list, this.filtered(filters, caller), selectRow, ordering)
    },

    /** One vote, if the caller may see it. */
    async visible(id: number, caller: Caller | null): Promise<ChoiceVoteRow | undefined> {
      return (await selectRow(this.filtered({}, caller).where('question_choice_votes.id', '=', id)).executeTakeFirst()) as
        ChoiceVoteRow | undefined
    },

    /** Public picks, the caller's own, nothing on questions the caller may not see; staff see all. */
    filtered(filters: ChoiceVoteListQuery, caller: Caller | null) {
      let query = db.selectFrom('question_choice_votes').innerJoin('questions', 'questions.id', 'question_choice_votes.question_id')
      if (!caller) {
        query = query.where('question_choice_votes.private', '=', false).where('questions.publish', '=', true)
      } else if (!caller.isStaff) {
        const own = caller.id
        query = query
          .where((eb) => eb.or([eb('question_choice_votes.private', '=', false), eb('question_choice_votes.user_id', '=', own)]))
          .where((eb) =>
            eb.or([eb('questions.publish', '=', true), eb('questions.user_id', '=', own), eb('question_choice_votes.user_id', '=', own)]),
          )
      }
      if (filters.object_id !== undefined) query = query.where('question_choice_votes.choice_id', '=', filters.object_id)
      if (filters.choice !== undefined) query = query.where('question_choice_votes.choice_id', '=', filters.choice)
      if (filters.question !== undefined) query = query.where('question_choice_votes.question_id', '=', filters.question)
      if (filters.user !== undefined) query = query.where('question_choice_votes.user_id', '=', filters.user)
      return query
    },
  }
}
