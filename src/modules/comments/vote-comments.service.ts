import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { fieldError, type FieldErrors, invalidPk } from '../../core/errors.ts'
import { commentsRepository } from './comments.repository.ts'
import { viewerOf } from '../../core/caller.ts'
import { refusingViolations } from '../../core/constraint-errors.ts'
import type { VoteCommentBody } from './vote-comments.schemas.ts'
import { voteCommentsRepository } from './vote-comments.repository.ts'

/**
 * Links one of the caller's answers to a comment on the same question as its reason. Only the caller's
 * own answers can be named; a pair is linked once (a unique constraint).
 */
export async function giveReason(db: Kysely<Database>, caller: Caller, body: VoteCommentBody): Promise<number> {
  const repository = voteCommentsRepository(db)
  const vote = await repository.findOwnVote(body.vote, caller.id)
  if (!vote) throw fieldError('vote', invalidPk(body.vote))
  const comment = await commentsRepository(db).findVisible(body.comment, viewerOf(caller))
  if (!comment) throw fieldError('comment', invalidPk(body.comment))
  if (comment.question_id !== vote.question_id) throw fieldError('comment', 'The comment is on another question than the vote.')
  return refusingViolations(() => repository.insert(vote.id, comment.id), {
    unique: { non_field_errors: ['The fields vote, comment must make a unique set.'] },
    missing: (constraint): FieldErrors =>
      constraint.includes('vote_id') ? { vote: [invalidPk(body.vote)] } : { comment: [invalidPk(body.comment)] },
  })
}
