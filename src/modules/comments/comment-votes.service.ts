import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { fieldError, NotFound, invalidPk } from '../../core/errors.ts'
import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { loadFullUsers } from '../users/users.service.ts'
import type { FullUser } from '../users/users.schemas.ts'
import { commentVotesRepository, type CommentVoteRow } from './comment-votes.repository.ts'
import { DOWN, UP, type CommentVote, type CommentVoteBody } from './comment-votes.schemas.ts'
import { commentsRepository } from './comments.repository.ts'
import { viewerOf } from '../../core/caller.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import type { ViewContext } from '../../core/view-context.ts'

export function toCommentVote(row: CommentVoteRow, user: FullUser, urls: UrlBuilder): CommentVote {
  return {
    id: row.id,
    url: urls.detail('comment_votes', row.id),
    value: row.value,
    user,
    private: row.private,
    active: row.active,
    object_id: row.comment_id,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}

/** Votes with their voters in the full user form, loaded once for the whole page. */
export async function commentVotesFromRows(context: ViewContext, rows: CommentVoteRow[]): Promise<CommentVote[]> {
  if (rows.length === 0) return []
  const users = await loadFullUsers(
    context,
    rows.map((row) => row.user_id),
  )
  return rows.map((row) => toCommentVote(row, users.get(row.user_id)!, context.urls))
}

export interface CastResult {
  vote: CommentVoteRow
  created: boolean
  /** The comment's tallies once the vote is in, as everyone reads them (published, migration 042). */
  tallies: { direct_maximum: number; direct_minimum: number }
}

/**
 * A vote on a comment. A new value (or privacy) supersedes the caller's earlier vote, which stays
 * with active false; the same vote again changes nothing. Without `private`, a vote keeps the privacy
 * of the one it supersedes, and a first vote takes the voter's default (default_private). The comment
 * row is locked, so its tallies are counted one vote at a time.
 */
export async function castCommentVote(db: Kysely<Database>, caller: Caller, body: CommentVoteBody): Promise<CastResult> {
  if (body.value !== UP && body.value !== DOWN) throw fieldError('value', `"${body.value}" is not a valid choice.`)
  const { vote, created } = await refusingViolations(
    () =>
      db.transaction().execute(async (trx) => {
        const comment = await commentsRepository(trx).lockVisible(body.object_id, viewerOf(caller))
        if (!comment) throw fieldError('object_id', invalidPk(body.object_id))
        if (comment.user_id === caller.id) throw fieldError('object_id', 'You cannot vote on your own comment.')
        const repository = commentVotesRepository(trx)
        const current = await repository.activeVote(caller.id, comment.id)
        const isPrivate = body.private ?? current?.private ?? (await repository.defaultPrivacyOf(caller.id))
        if (current && current.value === body.value && current.private === isPrivate) return { vote: current, created: false }
        if (current) await repository.deactivate(current.id)
        const wasPublic = current !== undefined && !current.private
        await repository.countOnUser(caller.id, current ? 0 : 1, Number(!isPrivate) - Number(wasPublic))
        const vote = await repository.insert({ comment_id: comment.id, user_id: caller.id, value: body.value, private: isPrivate })
        await repository.retally(comment.id)
        return { vote, created: true }
      }),
    {
      unique: { non_field_errors: ['You already have a vote on this comment.'] },
      missing: () => ({ object_id: [invalidPk(body.object_id)] }),
    },
  )
  // Read once committed: the batch a change completes is released as its transaction commits (migration 042).
  const tallies = (await commentsRepository(db).publishedTallies(vote.comment_id)) ?? { direct_maximum: 0, direct_minimum: 0 }
  return { vote, created, tallies }
}

/** Withdraws a vote: it stays as history with active false and stops counting. Idempotent. */
export async function withdrawCommentVote(db: Kysely<Database>, id: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const repository = commentVotesRepository(trx)
    const before = await repository.findById(id)
    if (!before) throw NotFound()
    await repository.lockComment(before.comment_id)
    const vote = await repository.findById(id)
    if (!vote) throw NotFound()
    if (!vote.active) return
    await repository.deactivate(vote.id)
    await repository.retally(vote.comment_id)
    await repository.countOnUser(vote.user_id, -1, vote.private ? 0 : -1)
  })
}
