import { sql, type Kysely, type Selectable } from 'kysely'
import type { CommentVotes, Database } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { commentVisibleTo } from './comments.repository.ts'
import { type Viewer } from '../../core/caller.ts'
import { queryBoolean } from './comments.schemas.ts'
import { DOWN, UP, type CommentVoteListQuery } from './comment-votes.schemas.ts'

export type CommentVoteRow = Selectable<CommentVotes>

const COMMENT_VOTE_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'value', 'active', 'created_at', 'modified_at'], 'comment_votes'),
  object_id: column('comment_votes.comment_id'),
  comment: column('comment_votes.comment_id'),
  user: column('comment_votes.user_id'),
}

const VOTE_COLUMNS = [
  'comment_votes.id',
  'comment_votes.comment_id',
  'comment_votes.user_id',
  'comment_votes.value',
  'comment_votes.private',
  'comment_votes.active',
  'comment_votes.created_at',
  'comment_votes.modified_at',
] as const

export function commentVotesRepository(db: Kysely<Database>) {
  /** Votes on comments the viewer can see; private ones only for their voter and staff. */
  const visible = (viewer: Viewer) =>
    db
      .selectFrom('comment_votes')
      .innerJoin('comments', 'comments.id', 'comment_votes.comment_id')
      .innerJoin('questions', 'questions.id', 'comments.question_id')
      .where((eb) => commentVisibleTo(eb, viewer))
      .where((eb) =>
        viewer.isStaff ? eb.lit(true) : eb.or([eb('comment_votes.private', '=', false), eb('comment_votes.user_id', '=', viewer.id ?? -1)]),
      )

  return {
    /** A page of the votes the viewer may see, newest first unless ordered otherwise. */
    async page(filters: CommentVoteListQuery, viewer: Viewer, list: ListRequest): Promise<RowsPage<CommentVoteRow>> {
      const ordering = orderingTerms(list.ordering, COMMENT_VOTE_ORDERING, ['-created_at'], column('comment_votes.id'))
      return pageOfRows<CommentVoteRow>(list, this.filtered(filters, viewer), (q) => q.select(VOTE_COLUMNS), ordering)
    },

    filtered(filters: CommentVoteListQuery, viewer: Viewer) {
      let query = visible(viewer)
      if (filters.id !== undefined) query = query.where('comment_votes.id', '=', filters.id)
      if (filters.object_id !== undefined) query = query.where('comment_votes.comment_id', '=', filters.object_id)
      if (filters.comment !== undefined) query = query.where('comment_votes.comment_id', '=', filters.comment)
      if (filters.user !== undefined) query = query.where('comment_votes.user_id', '=', filters.user)
      if (filters.value !== undefined) query = query.where('comment_votes.value', '=', filters.value)
      const active = queryBoolean(filters.active)
      if (active !== undefined) query = query.where('comment_votes.active', '=', active)
      return query
    },

    columns: VOTE_COLUMNS,

    async findVisible(id: number, viewer: Viewer): Promise<CommentVoteRow | undefined> {
      return visible(viewer).select(VOTE_COLUMNS).where('comment_votes.id', '=', id).executeTakeFirst()
    },

    /** The voter's default privacy (the account's default_private): a first vote without `private` takes it. */
    async defaultPrivacyOf(userId: number): Promise<boolean> {
      const row = await db.selectFrom('users').select('default_private').where('id', '=', userId).executeTakeFirst()
      return row?.default_private ?? false
    },

    async findById(id: number): Promise<CommentVoteRow | undefined> {
      return db.selectFrom('comment_votes').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** Locks the comment so that votes on it are counted one at a time. */
    async lockComment(commentId: number): Promise<void> {
      await db.selectFrom('comments').select('id').where('id', '=', commentId).forUpdate().execute()
    },

    async activeVote(userId: number, commentId: number): Promise<CommentVoteRow | undefined> {
      return db
        .selectFrom('comment_votes')
        .selectAll()
        .where('user_id', '=', userId)
        .where('comment_id', '=', commentId)
        .where('active', '=', true)
        .executeTakeFirst()
    },

    async deactivate(id: number): Promise<void> {
      await db
        .updateTable('comment_votes')
        .set({ active: false, modified_at: sql`now()` })
        .where('id', '=', id)
        .execute()
    },

    async insert(values: { comment_id: number; user_id: number; value: number; private: boolean }): Promise<CommentVoteRow> {
      return db
        .insertInto('comment_votes')
        .values({ ...values, active: true })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    /**
     * Counts the comment's active votes again (its row is locked) and stores the tallies, of every vote and of public
     * ones; what is published of them is read through published_comment_corrections (migration 042).
     */
    async retally(commentId: number): Promise<void> {
      const counted = (value: number, publicOnly: boolean) =>
        sql<number>`(SELECT count(*)::int FROM comment_votes
          WHERE comment_id = ${commentId} AND active AND value = ${value} ${publicOnly ? sql`AND NOT private` : sql``})`
      await db
        .updateTable('comments')
        .set({
          direct_maximum: counted(UP, false),
          direct_minimum: counted(DOWN, false),
          public_direct_maximum: counted(UP, true),
          public_direct_minimum: counted(DOWN, true),
        })
        .where('id', '=', commentId)
        .execute()
    },

    /** Moves the voter's count of active comment votes, and the count of public ones that others see. */
    async countOnUser(userId: number, delta: number, publicDelta: number): Promise<void> {
      if (delta === 0 && publicDelta === 0) return
      await db
        .updateTable('users')
        .set((eb) => ({
          count_comment_votes: eb('count_comment_votes', '+', delta),
          public_count_comment_votes: eb('public_count_comment_votes', '+', publicDelta),
        }))
        .where('id', '=', userId)
        .execute()
    },
  }
}
