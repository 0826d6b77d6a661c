import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely'
import type { Comments, Database } from '../../db/database.ts'
import type { Viewer } from '../../core/caller.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { queryBoolean, type CommentListQuery, type Subtype } from './comments.schemas.ts'

/** A comment as read (the tallies of its public votes, migration 039, are kept for civic-survey check, not read). */
export type CommentRow = Omit<Selectable<Comments>, 'public_direct_maximum' | 'public_direct_minimum'>
/** A comment with its published tallies and the title and slug of its question, as listings select it. */
export type ListedCommentRow = CommentRow & { question_text: string; question_slug: string }

/**
 * A comment's tallies as everyone sees them (the voters, the comment's author and staff alike): the stored ones, which
 * count every active vote, corrected for the people whose private vote has a change waiting for its batch
 * (migration 042, published_comment_corrections). Listings select them and orderings sort on them, so an order tells
 * no more than the tallies.
 */
const PUBLISHED_TALLIES = {
  direct_maximum: sql<number>`(comments.direct_maximum + (SELECT up FROM published_comment_corrections(comments.id)))`,
  direct_minimum: sql<number>`(comments.direct_minimum + (SELECT down FROM published_comment_corrections(comments.id)))`,
}

const COMMENT_ORDERING: OrderingFields = {
  ...orderingFieldsOf(['id', 'created_at', 'modified_at', 'subtype', 'text'], 'comments'),
  direct_maximum: PUBLISHED_TALLIES.direct_maximum,
  direct_minimum: PUBLISHED_TALLIES.direct_minimum,
  question: column('comments.question_id'),
  user: column('comments.user_id'),
  parent: column('comments.parent_id'),
}

/** Staff may also sort by how often a comment was reported. */
const STAFF_COMMENT_ORDERING: OrderingFields = { ...COMMENT_ORDERING, report_count: column('comments.report_count') }

/** A comment's own columns but its tallies. */
const COMMENT_FIELDS = [
  'comments.id',
  'comments.question_id',
  'comments.user_id',
  'comments.parent_id',
  'comments.text',
  'comments.subtype',
  'comments.report_count',
  'comments.is_hidden',
  'comments.created_at',
  'comments.modified_at',
] as const

/** The comment as stored (its tallies count every active vote). */
const COMMENT_COLUMNS = [...COMMENT_FIELDS, 'comments.direct_maximum', 'comments.direct_minimum'] as const

/** What a listing selects: the comment with its published tallies, and the title and slug of its question. */
const LISTED_COLUMNS = [
  ...COMMENT_FIELDS,
  PUBLISHED_TALLIES.direct_maximum.as('direct_maximum'),
  PUBLISHED_TALLIES.direct_minimum.as('direct_minimum'),
  'questions.question as question_text',
  'questions.slug as question_slug',
] as const

type CommentsEb = ExpressionBuilder<Database, 'comments' | 'questions'>

/**
 * What a viewer may see: comments on questions they can see (published, or their own), and hidden
 * comments only when they wrote them. Staff see everything.
 */
export function commentVisibleTo(eb: CommentsEb, viewer: Viewer) {
  if (viewer.isStaff) return eb.lit(true)
  if (viewer.id === null) return eb.and([eb('questions.publish', '=', true), eb('comments.is_hidden', '=', false)])
  return eb.and([
    eb.or([eb('questions.publish', '=', true), eb('questions.user_id', '=', viewer.id)]),
    eb.or([eb('comments.is_hidden', '=', false), eb('comments.user_id', '=', viewer.id)]),
  ])
}

export function commentsRepository(db: Kysely<Database>) {
  const visible = (viewer: Viewer) =>
    db
      .selectFrom('comments')
      .innerJoin('questions', 'questions.id', 'comments.question_id')
      .where((eb) => commentVisibleTo(eb, viewer))

  return {
    /** A page of the comments the viewer may see, newest first unless ordered otherwise (staff may order by reports). */
    async page(filters: CommentListQuery, viewer: Viewer, list: ListRequest): Promise<RowsPage<ListedCommentRow>> {
      const fields = viewer.isStaff ? STAFF_COMMENT_ORDERING : COMMENT_ORDERING
      const ordering = orderingTerms(list.ordering, fields, ['-created_at'], column('comments.id'))
      return pageOfRows<ListedCommentRow>(list, this.filtered(filters, viewer), (q) => q.select(LISTED_COLUMNS), ordering)
    },

    /** The listing's FROM and WHERE. */
    filtered(filters: CommentListQuery, viewer: Viewer) {
      let query = visible(viewer)
      if (filters.id !== undefined) query = query.where('comments.id', '=', filters.id)
      if (filters.question !== undefined) query = query.where('comments.question_id', '=', filters.question)
      if (filters.user !== undefined) query = query.where('comments.user_id', '=', filters.user)
      if (filters.parent !== undefined) query = query.where('comments.parent_id', '=', filters.parent)
      const topLevel = queryBoolean(filters.parent__isnull)
      if (topLevel !== undefined) query = query.where('comments.parent_id', topLevel ? 'is' : 'is not', null)
      if (filters.subtype !== undefined) query = query.where('comments.subtype', '=', filters.subtype)
      const hidden = queryBoolean(filters.is_hidden)
      if (hidden !== undefined) query = query.where('comments.is_hidden', '=', hidden)
      return query
    },

    async findVisible(id: number, viewer: Viewer): Promise<ListedCommentRow | undefined> {
      return visible(viewer).select(LISTED_COLUMNS).where('comments.id', '=', id).executeTakeFirst()
    },

    /** The comment's published tallies; none once it is removed. */
    async publishedTallies(id: number): Promise<{ direct_maximum: number; direct_minimum: number } | undefined> {
      return db
        .selectFrom('comments')
        .select([PUBLISHED_TALLIES.direct_maximum.as('direct_maximum'), PUBLISHED_TALLIES.direct_minimum.as('direct_minimum')])
        .where('comments.id', '=', id)
        .executeTakeFirst()
    },

    /** The active votes on every comment as the published tallies count them, together (general_stats). */
    async publishedVoteCount(): Promise<number> {
      const { rows } = await sql<{ n: number }>`
        SELECT ((SELECT count(*) FROM comment_votes WHERE active)
          + (SELECT coalesce(sum(c.up + c.down), 0) FROM (SELECT DISTINCT comment_id FROM unreleased_comment_votes) AS u
             CROSS JOIN LATERAL published_comment_corrections(u.comment_id) AS c))::int AS n`.execute(db)
      return rows[0].n
    },

    /** The comment, locked until the transaction ends, if the viewer may see it. */
    async lockVisible(id: number, viewer: Viewer): Promise<CommentRow | undefined> {
      return visible(viewer).select(COMMENT_COLUMNS).where('comments.id', '=', id).forUpdate('comments').executeTakeFirst()
    },

    /** Whether the viewer may see the question, and so comment on it. */
    async questionVisible(questionId: number, viewer: Viewer): Promise<boolean> {
      let query = db.selectFrom('questions').select('id').where('id', '=', questionId)
      if (!viewer.isStaff) query = query.where((eb) => eb.or([eb('publish', '=', true), eb('user_id', '=', viewer.id ?? -1)]))
      return (await query.executeTakeFirst()) !== undefined
    },

    async insert(values: {
      question_id: number
      user_id: number
      parent_id: number | null
      text: string
      subtype: Subtype
    }): Promise<CommentRow> {
      return db.insertInto('comments').values(values).returning(COMMENT_COLUMNS).executeTakeFirstOrThrow()
    },

    async update(id: number, values: { text?: string; subtype?: Subtype; is_hidden?: boolean }, touch: boolean): Promise<void> {
      await db
        .updateTable('comments')
        .set({ ...values, ...(touch ? { modified_at: sql`now()` } : {}) })
        .where('id', '=', id)
        .execute()
    },

    /** Replies of a removed comment move up to its parent, so other people's words stay. */
    async reparentReplies(id: number, newParent: number | null): Promise<void> {
      await db.updateTable('comments').set({ parent_id: newParent }).where('parent_id', '=', id).execute()
    },

    /** Removes the comment; its votes, reports and vote reasons go with it. */
    async remove(id: number): Promise<void> {
      await db.deleteFrom('comments').where('id', '=', id).execute()
    },

    /** Adds `delta` to the question's count of visible comments and to the count of that subtype. */
    async countOnQuestion(questionId: number, subtype: Subtype, delta: number): Promise<void> {
      if (delta === 0) return
      const field = `count_comments_${subtype}` as const
      await db
        .updateTable('questions')
        .set((eb) => ({ count_comments: eb('count_comments', '+', delta), [field]: eb(field, '+', delta) }))
        .where('id', '=', questionId)
        .execute()
    },

    async moveSubtypeOnQuestion(questionId: number, from: Subtype, to: Subtype): Promise<void> {
      if (from === to) return
      const was = `count_comments_${from}` as const
      const now = `count_comments_${to}` as const
      await db
        .updateTable('questions')
        .set((eb) => ({ [was]: eb(was, '-', 1), [now]: eb(now, '+', 1) }))
        .where('id', '=', questionId)
        .execute()
    },

    async countOnUser(userId: number, delta: number): Promise<void> {
      await db
        .updateTable('users')
        .set((eb) => ({ count_comments: eb('count_comments', '+', delta) }))
        .where('id', '=', userId)
        .execute()
    },

    /** Voters of a comment about to be removed lose their active vote on it (one each: a unique index) from their counts. */
    async releaseVotersOf(commentId: number): Promise<void> {
      await sql`UPDATE users u SET count_comment_votes = u.count_comment_votes - 1,
          public_count_comment_votes = u.public_count_comment_votes - CASE WHEN v.private THEN 0 ELSE 1 END
        FROM comment_votes v WHERE v.comment_id = ${commentId} AND v.active AND u.id = v.user_id`.execute(db)
    },

    /** Answers of several authors on several questions; private ones only for `privateOf`. */
    async answersOf(userIds: number[], questionIds: number[], privateOf: number | null) {
      if (userIds.length === 0 || questionIds.length === 0) return { likert: [], choices: [] }
      const users = [...new Set(userIds)]
      const questions = [...new Set(questionIds)]
      const owner = privateOf ?? -1
      const [likert, choices] = await Promise.all([
        db
          .selectFrom('question_votes')
          .select(['id', 'user_id', 'question_id', 'value', 'skipped', 'private', 'created_at', 'modified_at'])
          .where('user_id', 'in', users)
          .where('question_id', 'in', questions)
          .where((eb) => eb.or([eb('private', '=', false), eb('user_id', '=', owner)]))
          .orderBy('id')
          .execute(),
        db
          .selectFrom('question_choice_votes')
          .select(['id', 'user_id', 'question_id', 'choice_id', 'value', 'skipped', 'private', 'created_at', 'modified_at'])
          .where('user_id', 'in', users)
          .where('question_id', 'in', questions)
          .where((eb) => eb.or([eb('private', '=', false), eb('user_id', '=', owner)]))
          .orderBy('id')
          .execute(),
      ])
      return { likert, choices }
    },

    /** The viewer's active votes on these comments. */
    async activeVotesOf(userId: number | null, commentIds: number[]) {
      if (userId === null || commentIds.length === 0) return []
      return db
        .selectFrom('comment_votes')
        .select(['id', 'comment_id', 'value', 'private', 'active', 'created_at', 'modified_at'])
        .where('user_id', '=', userId)
        .where('comment_id', 'in', commentIds)
        .where('active', '=', true)
        .execute()
    },

    /** One report per user and comment (a unique constraint); the count moves only for a new one. */
    async report(commentId: number, userId: number, reason: string) {
      const inserted = await db
        .insertInto('comment_reports')
        .values({ comment_id: commentId, user_id: userId, reason })
        .onConflict((oc) => oc.columns(['comment_id', 'user_id']).doNothing())
        .returningAll()
        .executeTakeFirst()
      if (inserted) {
        await db
          .updateTable('comments')
          .set((eb) => ({ report_count: eb('report_count', '+', 1) }))
          .where('id', '=', commentId)
          .execute()
        return { report: inserted, created: true }
      }
      const existing = await db
        .selectFrom('comment_reports')
        .selectAll()
        .where('comment_id', '=', commentId)
        .where('user_id', '=', userId)
        .executeTakeFirstOrThrow()
      return { report: existing, created: false }
    },
  }
}

export type CommentsRepository = ReturnType<typeof commentsRepository>
export type AuthorAnswers = Awaited<ReturnType<CommentsRepository['answersOf']>>
export type OwnVoteRow = Awaited<ReturnType<CommentsRepository['activeVotesOf']>>[number]
