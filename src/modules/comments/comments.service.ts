import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { NotFound, type FieldErrors, ValidationFailed, invalidPk } from '../../core/errors.ts'
import { usersRepository } from '../users/users.repository.ts'
import { notificationEvents } from '../../engines/notifications/notification-events.ts'
import { answerKey, answersByAuthor, toComment, toCommentAuthor, toOwnCommentVote } from './comments.mapper.ts'
import { commentsRepository, type ListedCommentRow } from './comments.repository.ts'
import { SUBTYPES, type Comment, type CommentCreate, type CommentPatch, type Subtype } from './comments.schemas.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import type { ViewContext } from '../../core/view-context.ts'
import { viewerOf } from '../../core/caller.ts'

/**
 * Comments for a page of rows in a fixed number of statements: authors, their answers to the
 * questions and the viewer's votes on the comments are each loaded once for the whole page.
 */
export async function commentsFromRows(context: ViewContext, rows: ListedCommentRow[]): Promise<Comment[]> {
  if (rows.length === 0) return []
  const { db, urls } = context
  const viewer = viewerOf(context.caller)
  const repository = commentsRepository(db)
  const authorIds = rows.map((row) => row.user_id)
  const [authors, answers, myVotes] = await Promise.all([
    usersRepository(db).findByIds(authorIds),
    repository.answersOf(
      authorIds,
      rows.map((row) => row.question_id),
      viewer.id,
    ),
    repository.activeVotesOf(
      viewer.id,
      rows.map((row) => row.id),
    ),
  ])
  const authorById = new Map(authors.map((row) => [row.id, toCommentAuthor(row, urls, context.defaultAvatar)]))
  const answersByKey = answersByAuthor(answers)
  const myVoteByComment = new Map(myVotes.map((row) => [row.comment_id, toOwnCommentVote(row)]))
  return rows.map((row) => {
    const mine = myVoteByComment.get(row.id)
    return toComment(
      row,
      {
        author: authorById.get(row.user_id)!,
        vote: answersByKey.get(answerKey(row.user_id, row.question_id)) ?? [],
        myVote: mine ? [mine] : [],
        showReports: viewer.isStaff,
      },
      urls,
    )
  })
}

export async function loadComment(context: ViewContext, id: number): Promise<Comment> {
  const row = await commentsRepository(context.db).findVisible(id, viewerOf(context.caller))
  if (!row) throw NotFound()
  const [comment] = await commentsFromRows(context, [row])
  return comment
}

function subtypeOf(value: string | undefined, errors: FieldErrors): Subtype | undefined {
  if (value === undefined) return undefined
  if ((SUBTYPES as readonly string[]).includes(value)) return value as Subtype
  errors.subtype = [`"${value}" is not a valid choice.`]
  return undefined
}

/** DRF's CharField trims the text and refuses it when nothing is left. */
function textOf(value: string | undefined, errors: FieldErrors): string | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (text === '') errors.text = ['This field may not be blank.']
  return text
}

/** Creates the comment and counts it on its question and its author, all or nothing. */
export async function createComment(db: Kysely<Database>, caller: Caller, body: CommentCreate): Promise<number> {
  const viewer = viewerOf(caller)
  const errors: FieldErrors = {}
  const text = textOf(body.text, errors)!
  const subtype = subtypeOf(body.subtype, errors) ?? 'info'
  const parentId = body.parent ?? null
  return refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        const repository = commentsRepository(trx)
        // Every field is checked before answering, so one 400 names all the problems (in the body's field order).
        const questionOk = await repository.questionVisible(body.question, viewer)
        const parent = parentId === null ? undefined : await repository.findVisible(parentId, viewer)
        const problems: FieldErrors = {
          ...(errors.text && { text: errors.text }),
          ...(!questionOk && { question: [invalidPk(body.question)] }),
          ...(errors.subtype && { subtype: errors.subtype }),
          ...(parentId !== null && !parent && { parent: [invalidPk(parentId)] }),
          ...(questionOk &&
            parent &&
            parent.question_id !== body.question && { parent: ['The parent comment belongs to another question.'] }),
        }
        if (Object.keys(problems).length) throw ValidationFailed(problems)
        const row = await repository.insert({ question_id: body.question, user_id: caller.id, parent_id: parentId, text, subtype })
        await repository.countOnQuestion(row.question_id, subtype, 1)
        await repository.countOnUser(caller.id, 1)
        await notificationEvents.commented(trx, row)
        return row.id
      }),
    {
      missing: (constraint): FieldErrors =>
        constraint.includes('parent_id') ? { parent: [invalidPk(body.parent)] } : { question: [invalidPk(body.question)] },
    },
  )
}

/** Text and subtype change; a comment stays on its question and under its parent. */
export async function updateComment(db: Kysely<Database>, caller: Caller, id: number, body: CommentPatch): Promise<void> {
  const errors: FieldErrors = {}
  const text = textOf(body.text, errors)
  const subtype = subtypeOf(body.subtype, errors)
  await db.transaction().execute(async (trx) => {
    const repository = commentsRepository(trx)
    const comment = await repository.lockVisible(id, viewerOf(caller))
    if (!comment) throw NotFound()
    if (body.question !== undefined && body.question !== comment.question_id)
      errors.question = ['A comment cannot move to another question.']
    if (body.parent !== undefined && body.parent !== comment.parent_id) errors.parent = ['A comment cannot move to another parent.']
    if (Object.keys(errors).length) throw ValidationFailed(errors)
    if (text === undefined && subtype === undefined) return
    await repository.update(id, { text, subtype }, true)
    if (subtype !== undefined && !comment.is_hidden)
      await repository.moveSubtypeOnQuestion(comment.question_id, comment.subtype as Subtype, subtype)
  })
}

/** Removes the comment and its votes; replies move up to its parent. Counters follow in the same transaction. */
export async function deleteComment(db: Kysely<Database>, caller: Caller, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = commentsRepository(trx)
    const comment = await repository.lockVisible(id, viewerOf(caller))
    if (!comment) throw NotFound()
    await repository.reparentReplies(id, comment.parent_id)
    await repository.releaseVotersOf(id)
    if (!comment.is_hidden) await repository.countOnQuestion(comment.question_id, comment.subtype as Subtype, -1)
    await repository.countOnUser(comment.user_id, -1)
    await repository.remove(id)
  })
}

/** Hides or shows again; a hidden comment does not count on its question. Idempotent. */
export async function setHidden(db: Kysely<Database>, caller: Caller, id: number, hidden: boolean): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = commentsRepository(trx)
    const comment = await repository.lockVisible(id, viewerOf(caller))
    if (!comment) throw NotFound()
    if (comment.is_hidden === hidden) return
    await repository.update(id, { is_hidden: hidden }, false)
    await repository.countOnQuestion(comment.question_id, comment.subtype as Subtype, hidden ? -1 : 1)
  })
}

/** One report per person and comment: a repeated report answers the first one and counts nothing. */
export async function reportComment(db: Kysely<Database>, caller: Caller, id: number, reason: string) {
  return db.transaction().execute(async (trx) => {
    const repository = commentsRepository(trx)
    const comment = await repository.lockVisible(id, viewerOf(caller))
    if (!comment) throw NotFound()
    if (comment.user_id === caller.id) throw ValidationFailed({ non_field_errors: ['You cannot report your own comment.'] })
    return repository.report(id, caller.id, reason.trim())
  })
}
