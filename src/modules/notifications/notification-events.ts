import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../db/types.ts'
import { DEFAULT_CHANNELS, type NotificationKind } from './notification-kinds.ts'

/**
 * The notifications each event writes, inside the transaction of the change that causes it, so that a change
 * and its notifications commit or vanish together. Each event is one INSERT … SELECT however many people it
 * reaches: the recipients are a query, their settings are joined in, and the message is built in SQL.
 */
interface Event {
  kind: NotificationKind
  actorId: number
  /** A query whose first column is a recipient's user id (duplicates and the actor are dropped). */
  recipients: RawBuilder<unknown>
  /** The message with `%1$s` for the actor's name and `%2$s` for the subject. */
  message: string
  /** What the message is about (a question's text, a group's name), shortened. */
  subject?: RawBuilder<string>
  /** The API path of the resource it is about. */
  link: string
  data: Record<string, number | string | number[] | null>
}

const SUBJECT_LENGTH = 80

async function write(db: Db, event: Event): Promise<void> {
  const { kind, actorId } = event
  const defaults = DEFAULT_CHANNELS[kind]
  const setting = (channel: string, fallback: boolean) =>
    sql<boolean>`coalesce((s.settings #>> ${`{kinds,${kind},${channel}}`}::text[])::boolean, ${fallback})`
  const subject = event.subject ?? sql<string>`''`
  await sql`
    INSERT INTO notifications (user_id, actor_id, kind, message, url, payload, in_app, email, push)
    SELECT r.user_id, ${actorId}::integer, ${kind}, m.message, ${event.link}, ${JSON.stringify(event.data)}::jsonb,
           c.in_app, c.email, c.push
    FROM (SELECT DISTINCT wanted.user_id FROM (${event.recipients}) AS wanted(user_id)) r
    JOIN users u ON u.id = r.user_id AND u.is_active AND NOT u.is_deleted
    LEFT JOIN notification_settings s ON s.user_id = r.user_id
    CROSS JOIN LATERAL (SELECT ${setting('in_app', defaults.in_app)} AS in_app, ${setting('email', defaults.email)} AS email,
                               ${setting('push', defaults.push)} AS push) c
    CROSS JOIN (
      SELECT format(${event.message}, coalesce(nullif(btrim(a.first_name || ' ' || a.last_name), ''), a.username, 'Someone'),
                    CASE WHEN length(x.subject) > ${SUBJECT_LENGTH} THEN left(x.subject, ${SUBJECT_LENGTH - 1}) || '…' ELSE x.subject END) AS message
      FROM (SELECT coalesce((${subject}), '') AS subject) x LEFT JOIN users a ON a.id = ${actorId}
    ) m
    WHERE r.user_id <> ${actorId} AND (c.in_app OR c.email OR c.push)`.execute(db)
}

const questionText = (questionId: number) => sql<string>`SELECT question FROM questions WHERE id = ${questionId}`

/** Delegators whose weight on the question goes through `trusteeId` directly and who did not answer it themselves. */
function directDelegators(questionId: number, trusteeId: number): RawBuilder<unknown> {
  return sql`
    SELECT d.user_id FROM (
      SELECT user_id FROM question_delegations WHERE question_id = ${questionId} AND trustee_id = ${trusteeId} AND revoked_at IS NULL
      UNION
      SELECT td.user_id FROM tag_delegations td JOIN question_tags qt ON qt.tag_id = td.tag_id AND qt.question_id = ${questionId}
      WHERE td.trustee_id = ${trusteeId} AND td.revoked_at IS NULL
    ) d
    WHERE liquid_parent(${questionId}, d.user_id) = ${trusteeId} AND liquid_answer_carries(${questionId}, d.user_id) IS NULL`
}

export const notificationEvents = {
  /** A comment: its question's author hears of it, and so does the author of the comment it replies to. */
  async commented(db: Db, comment: { id: number; question_id: number; user_id: number; parent_id: number | null }) {
    const data = { comment: comment.id, question: comment.question_id, parent: comment.parent_id }
    const link = `/api/comments/${comment.id}/`
    const parentAuthor = sql`SELECT user_id FROM comments WHERE id = ${comment.parent_id}`
    await write(db, {
      kind: 'comment_on_question',
      actorId: comment.user_id,
      // The author of the comment replied to hears of it once, as a reply.
      recipients: sql`SELECT user_id FROM questions WHERE id = ${comment.question_id}
                      AND user_id IS DISTINCT FROM (${parentAuthor})`,
      message: '%1$s commented on your question “%2$s”',
      subject: questionText(comment.question_id),
      link,
      data,
    })
    if (comment.parent_id !== null)
      await write(db, {
        kind: 'comment_reply',
        actorId: comment.user_id,
        recipients: parentAuthor,
        message: '%1$s replied to your comment on “%2$s”',
        subject: questionText(comment.question_id),
        link,
        data,
      })
  },

  async friendRequested(db: Db, friendship: { id: number; user_id: number; friend_id: number }) {
    await write(db, {
      kind: 'friend_request',
      actorId: friendship.user_id,
      recipients: sql`SELECT ${friendship.friend_id}::integer`,
      message: '%1$s asked to be your friend',
      link: `/api/friends/${friendship.id}/`,
      data: { friendship: friendship.id },
    })
  },

  async friendAccepted(db: Db, friendship: { id: number; user_id: number; friend_id: number }) {
    await write(db, {
      kind: 'friend_accepted',
      actorId: friendship.friend_id,
      recipients: sql`SELECT ${friendship.user_id}::integer`,
      message: '%1$s accepted your friend request',
      link: `/api/friends/${friendship.id}/`,
      data: { friendship: friendship.id },
    })
  },

  /** A published question: everyone following its author hears of it. */
  async asked(db: Db, question: { id: number; user_id: number }) {
    await write(db, {
      kind: 'followed_user_asked',
      actorId: question.user_id,
      recipients: sql`SELECT f.user_id FROM following_users f JOIN questions q ON q.id = ${question.id} AND q.publish
                      WHERE f.following_id = ${question.user_id}`,
      message: '%1$s asked “%2$s”',
      subject: questionText(question.id),
      link: `/api/questions/${question.id}/`,
      data: { question: question.id },
    })
  },

  /** A new answer that carries weight (public, by an active account): those whose vote it now casts hear of it. */
  async delegateAnswered(db: Db, voterId: number, questionId: number) {
    await write(db, {
      kind: 'delegate_answered',
      actorId: voterId,
      recipients: sql`SELECT * FROM (${directDelegators(questionId, voterId)}) d WHERE liquid_answer_carries(${questionId}, ${voterId})`,
      message: '%1$s answered “%2$s” on your behalf',
      subject: questionText(questionId),
      link: `/api/questions/${questionId}/`,
      data: { question: questionId, delegate: voterId },
    })
  },

  /**
   * A public answer withdrawn: those whose vote it cast hear that it now goes further along their delegation.
   * Callers skip private answers, which cast nobody's vote.
   */
  async delegateWithdrew(db: Db, voterId: number, questionId: number) {
    await write(db, {
      kind: 'delegate_withdrew',
      actorId: voterId,
      recipients: directDelegators(questionId, voterId),
      message: '%1$s withdrew their answer to “%2$s”: your vote now goes to whoever is next in your delegation',
      subject: questionText(questionId),
      link: `/api/questions/${questionId}/`,
      data: { question: questionId, delegate: voterId },
    })
  },

  /**
   * Questions added to a collection: whoever answered the collection itself (an answer recorded with it) hears
   * of them, at most once a day per collection. People who answered its questions elsewhere are strangers to
   * it: its owner, whoever that is, cannot put its name in front of them.
   */
  async collectionGrew(db: Db, collectionId: number, actorId: number, questionIds: number[]) {
    if (questionIds.length === 0) return
    const answeredIt = (table: string) => sql`SELECT v.user_id FROM ${sql.table(table)} v WHERE v.collection_id = ${collectionId}`
    await write(db, {
      kind: 'collection_gained_questions',
      actorId,
      recipients: sql`SELECT a.user_id FROM (${answeredIt('question_votes')} UNION ${answeredIt('question_choice_votes')}) a
        WHERE NOT EXISTS (SELECT 1 FROM notifications n WHERE n.kind = 'collection_gained_questions' AND n.user_id = a.user_id
          AND n.payload ->> 'collection' = ${String(collectionId)} AND n.created_at > now() - interval '1 day')`,
      message:
        questionIds.length === 1
          ? '%1$s added a question to “%2$s”, which you answered'
          : `%1$s added ${questionIds.length} questions to “%2$s”, which you answered`,
      subject: sql<string>`SELECT name FROM question_collections WHERE id = ${collectionId}`,
      link: `/api/question_collections/${collectionId}/`,
      data: { collection: collectionId, questions: questionIds },
    })
  },

  async groupInvited(db: Db, invite: { id: number; group_id: number; user_id: number | null; invited_by_id: number | null }) {
    if (invite.user_id === null || invite.invited_by_id === null) return
    await write(db, {
      kind: 'group_invite',
      actorId: invite.invited_by_id,
      recipients: sql`SELECT ${invite.user_id}::integer`,
      message: '%1$s invited you to join “%2$s”',
      subject: sql<string>`SELECT name FROM groups WHERE id = ${invite.group_id}`,
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
    await write(db, {
      kind: 'group_join_decision',
      actorId: deciderId,
      recipients: sql`SELECT ${request.user_id}::integer`,
      message: status === 'accepted' ? '%1$s accepted your request to join “%2$s”' : '%1$s declined your request to join “%2$s”',
      subject: sql<string>`SELECT name FROM groups WHERE id = ${request.group_id}`,
      link: `/api/groups/${request.group_id}/`,
      data: { group_join_request: request.id, group: request.group_id, status },
    })
  },
}
