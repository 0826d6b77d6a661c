import type { Db } from '../../db/types.ts'
import { recipients, subjects, writeNotifications } from './notification-outbox.repository.ts'

/**
 * The notifications each event writes, inside the transaction of the change that causes it, so that a change
 * and its notifications commit or vanish together: who hears of it, what they read, and what it links to.
 */
export const notificationEvents = {
  /** A comment: its question's author hears of it, and so does the author of the comment it replies to. */
  async commented(db: Db, comment: { id: number; question_id: number; user_id: number; parent_id: number | null }) {
    const data = { comment: comment.id, question: comment.question_id, parent: comment.parent_id }
    const link = `/api/comments/${comment.id}/`
    await writeNotifications(db, {
      kind: 'comment_on_question',
      actorId: comment.user_id,
      // The author of the comment replied to hears of it once, as a reply.
      recipients: recipients.questionAuthorBesidesCommentAuthor(comment.question_id, comment.parent_id),
      message: '%1$s commented on your question “%2$s”',
      subject: subjects.question(comment.question_id),
      link,
      data,
    })
    if (comment.parent_id !== null)
      await writeNotifications(db, {
        kind: 'comment_reply',
        actorId: comment.user_id,
        recipients: recipients.commentAuthor(comment.parent_id),
        message: '%1$s replied to your comment on “%2$s”',
        subject: subjects.question(comment.question_id),
        link,
        data,
      })
  },

  async friendRequested(db: Db, friendship: { id: number; user_id: number; friend_id: number }) {
    await writeNotifications(db, {
      kind: 'friend_request',
      actorId: friendship.user_id,
      recipients: recipients.user(friendship.friend_id),
      message: '%1$s asked to be your friend',
      link: `/api/friends/${friendship.id}/`,
      data: { friendship: friendship.id },
    })
  },

  async friendAccepted(db: Db, friendship: { id: number; user_id: number; friend_id: number }) {
    await writeNotifications(db, {
      kind: 'friend_accepted',
      actorId: friendship.friend_id,
      recipients: recipients.user(friendship.user_id),
      message: '%1$s accepted your friend request',
      link: `/api/friends/${friendship.id}/`,
      data: { friendship: friendship.id },
    })
  },

  /** A published question: everyone following its author hears of it. */
  async asked(db: Db, question: { id: number; user_id: number }) {
    await writeNotifications(db, {
      kind: 'followed_user_asked',
      actorId: question.user_id,
      recipients: recipients.followersOfAuthor(question.id, question.user_id),
      message: '%1$s asked “%2$s”',
      subject: subjects.question(question.id),
      link: `/api/questions/${question.id}/`,
      data: { question: question.id },
    })
  },

  /** A new answer that carries weight (public, by an active account): those whose vote it now casts hear of it. */
  delegateAnswered(db: Db, voterId: number, questionId: number): Promise<number> {
    return writeNotifications(db, {
      kind: 'delegate_answered',
      actorId: voterId,
      recipients: recipients.carriedDelegators(questionId, voterId),
      message: '%1$s answered “%2$s” on your behalf',
      subject: subjects.question(questionId),
      link: `/api/questions/${questionId}/`,
      data: { question: questionId, delegate: voterId },
    })
  },

  /**
   * A public answer withdrawn: those whose vote it cast hear that it now goes further along their delegation.
   * Callers skip private answers, which cast nobody's vote.
   */
  delegateWithdrew(db: Db, voterId: number, questionId: number): Promise<number> {
    return writeNotifications(db, {
      kind: 'delegate_withdrew',
      actorId: voterId,
      recipients: recipients.directDelegators(questionId, voterId),
      message: '%1$s withdrew their answer to “%2$s”: your vote now goes to whoever is next in your delegation',
      subject: subjects.question(questionId),
      link: `/api/questions/${questionId}/`,
      data: { question: questionId, delegate: voterId },
    })
  },

  /**
   * Published questions a collection gained, added to it or published in it: whoever answered the collection
   * itself (an answer recorded with it) hears of them, at most once a day per collection. People who answered its
   * questions elsewhere are strangers to it: its owner, whoever that is, cannot put its name in front of them.
   * Callers name published questions only: a draft is not counted for anyone the message would reach.
   */
  async collectionGrew(db: Db, collectionId: number, actorId: number, questionIds: number[], how: 'added' | 'published' = 'added') {
    if (questionIds.length === 0) return
    const verb = how === 'added' ? 'added' : 'published'
    const where = how === 'added' ? 'to' : 'in'
    await writeNotifications(db, {
      kind: 'collection_gained_questions',
      actorId,
      recipients: recipients.collectionAnswerersNotToldToday(collectionId),
      message:
        questionIds.length === 1
          ? `%1$s ${verb} a question ${where} “%2$s”, which you answered`
          : `%1$s ${verb} ${questionIds.length} questions ${where} “%2$s”, which you answered`,
      subject: subjects.collection(collectionId),
      link: `/api/question_collections/${collectionId}/`,
      data: { collection: collectionId, questions: questionIds },
    })
  },

  async groupInvited(db: Db, invite: { id: number; group_id: number; user_id: number | null; invited_by_id: number | null }) {
    if (invite.user_id === null || invite.invited_by_id === null) return
    await writeNotifications(db, {
      kind: 'group_invite',
      actorId: invite.invited_by_id,
      recipients: recipients.user(invite.user_id),
      message: '%1$s invited you to join “%2$s”',
      subject: subjects.group(invite.group_id),
      link: `/api/group_invites/${invite.id}/`,
      data: { group_invite: invite.id, group: invite.group_id },
    })
  },

  async joinRequestDecided(
    db: Db,
    request: { id: number; group_id: number; user_id: number },
    deciderId: number,
    status: 'accepted' | 'declined',
  ) {
    await writeNotifications(db, {
      kind: 'group_join_decision',
      actorId: deciderId,
      recipients: recipients.user(request.user_id),
      message: status === 'accepted' ? '%1$s accepted your request to join “%2$s”' : '%1$s declined your request to join “%2$s”',
      subject: subjects.group(request.group_id),
      link: `/api/groups/${request.group_id}/`,
      data: { group_join_request: request.id, group: request.group_id, status },
    })
  },
}
