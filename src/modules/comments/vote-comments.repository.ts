import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { commentVisibleTo } from './comments.repository.ts'
import { type Viewer } from '../../core/caller.ts'
import type { VoteComment, VoteCommentListQuery } from './vote-comments.schemas.ts'

const VOTE_COMMENT_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at'], 'vote_comments'),
  vote: column('vote_comments.vote_id'),
  comment: column('vote_comments.comment_id'),
}

const VOTE_COMMENT_COLUMNS = [
  'vote_comments.id',
  'vote_comments.vote_id',
  'vote_comments.comment_id',
  'vote_comments.created_at',
  'question_votes.question_id',
  'question_votes.user_id',
] as const

export interface VoteCommentRow {
  id: number
  vote_id: number
  comment_id: number
  created_at: Date | string
  question_id: number
  user_id: number
}

export function toVoteComment(row: VoteCommentRow, urls: UrlBuilder): VoteComment {
  return {
    id: row.id,
    url: urls.detail('vote_comments', row.id),
    vote: row.vote_id,
    comment: row.comment_id,
    question: row.question_id,
    user: row.user_id,
    created_at: iso(row.created_at),
  }
}

export function voteCommentsRepository(db: Kysely<Database>) {
  /** Reasons the viewer may see: of public answers (or their own) and comments they can see. */
  const visible = (viewer: Viewer) =>
    db
      .selectFrom('vote_comments')
      .innerJoin('question_votes', 'question_votes.id', 'vote_comments.vote_id')
      .innerJoin('comments', 'comments.id', 'vote_comments.comment_id')
      .innerJoin('questions', 'questions.id', 'comments.question_id')
      .where((eb) => commentVisibleTo(eb, viewer))
      .where((eb) =>
        viewer.isStaff
          ? eb.lit(true)
          : eb.or([eb('question_votes.private', '=', false), eb('question_votes.user_id', '=', viewer.id ?? -1)]),
      )

  return {
    /** A page of the reasons the viewer may see, in id order unless ordered otherwise. */
    async page(filters: VoteCommentListQuery, viewer: Viewer, list: ListRequest): Promise<RowsPage<VoteCommentRow>> {
      const ordering = orderingTerms(list.ordering, VOTE_COMMENT_ORDERING, ['id'], column('vote_comments.id'))
      return pageOfRows<VoteCommentRow>(list, this.filtered(filters, viewer), (q) => q.select(VOTE_COMMENT_COLUMNS), ordering)
    },

    filtered(filters: VoteCommentListQuery, viewer: Viewer) {
      let query = visible(viewer)
      if (filters.id !== undefined) query = query.where('vote_comments.id', '=', filters.id)
      if (filters.vote !== undefined) query = query.where('vote_comments.vote_id', '=', filters.vote)
      if (filters.comment !== undefined) query = query.where('vote_comments.comment_id', '=', filters.comment)
      if (filters.question !== undefined) query = query.where('question_votes.question_id', '=', filters.question)
      if (filters.user !== undefined) query = query.where('question_votes.user_id', '=', filters.user)
      return query
    },

    async findVisible(id: number, viewer: Viewer): Promise<VoteCommentRow | undefined> {
      return visible(viewer).select(VOTE_COMMENT_COLUMNS).where('vote_comments.id', '=', id).executeTakeFirst()
    },

    /**
     * Who answered with the vote a reason belongs to: only they (and staff) may remove it. A reason
     * the viewer cannot see (of someone else's private answer) has no owner for them: 404.
     */
    async ownerOf(id: number, viewer: Viewer): Promise<number | undefined> {
      const row = await db
        .selectFrom('vote_comments')
        .innerJoin('question_votes', 'question_votes.id', 'vote_comments.vote_id')
        .select(['question_votes.user_id', 'question_votes.private'])
        .where('vote_comments.id', '=', id)
        .executeTakeFirst()
      if (!row) return undefined
      return row.private && row.user_id !== viewer.id && !viewer.isStaff ? undefined : row.user_id
    },

    async findOwnVote(voteId: number, userId: number) {
      return db
        .selectFrom('question_votes')
        .select(['id', 'question_id'])
        .where('id', '=', voteId)
        .where('user_id', '=', userId)
        .executeTakeFirst()
    },

    async insert(voteId: number, commentId: number): Promise<number> {
      const row = await db
        .insertInto('vote_comments')
        .values({ vote_id: voteId, comment_id: commentId })
        .returning('id')
        .executeTakeFirstOrThrow()
      return row.id
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('vote_comments').where('id', '=', id).execute()
    },
  }
}
