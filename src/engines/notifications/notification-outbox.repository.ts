import { sql, type RawBuilder } from 'kysely'
import type { Db } from '../../db/types.ts'
import { DEFAULT_CHANNELS, type NotificationKind } from './notification-kinds.ts'

/**
 * The outbox: notifications are rows written inside the transaction of the change that causes them
 * (notification-events.ts says what each event writes). One INSERT … SELECT per event however many people it
 * reaches: the recipients are a query, their settings are joined in, and the message is built in SQL.
 */
export interface OutboxEvent {
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

/** Writes the event's notifications for its recipients who are active and take it on some channel. */
export async function writeNotifications(db: Db, event: OutboxEvent): Promise<number> {
  const { kind, actorId } = event
  const defaults = DEFAULT_CHANNELS[kind]
  const setting = (channel: string, fallback: boolean) =>
    sql<boolean>`coalesce((s.settings #>> ${`{kinds,${kind},${channel}}`}::text[])::boolean, ${fallback})`
  const subject = event.subject ?? sql<string>`''`
  const written = await sql`
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
  return Number(written.numAffectedRows ?? 0)
}

/** Recipient queries, each a query whose first column is a user id. */
export const recipients = {
  user: (userId: number) => sql`SELECT ${userId}::integer`,

  commentAuthor: (commentId: number | null) => sql`SELECT user_id FROM comments WHERE id = ${commentId}`,

  /** The question's author, unless they wrote the comment replied to (they hear of it once, as a reply). */
  questionAuthorBesidesCommentAuthor: (questionId: number, commentId: number | null) =>
    sql`SELECT user_id FROM questions WHERE id = ${questionId}
        AND user_id IS DISTINCT FROM (${recipients.commentAuthor(commentId)})`,

  /** Everyone following the author, once the question is published. */
  followersOfAuthor: (questionId: number, authorId: number) =>
    sql`SELECT f.user_id FROM following_users f JOIN questions q ON q.id = ${questionId} AND q.publish
        WHERE f.following_id = ${authorId}`,

  /** Delegators whose weight on the question goes through `trusteeId` directly and who did not answer it themselves. */
  directDelegators: (questionId: number, trusteeId: number): RawBuilder<unknown> => sql`
    SELECT d.user_id FROM (
      SELECT user_id FROM question_delegations WHERE question_id = ${questionId} AND trustee_id = ${trusteeId} AND revoked_at IS NULL
      UNION
      SELECT td.user_id FROM tag_delegations td JOIN question_tags qt ON qt.tag_id = td.tag_id AND qt.question_id = ${questionId}
      WHERE td.trustee_id = ${trusteeId} AND td.revoked_at IS NULL
    ) d
    WHERE liquid_parent(${questionId}, d.user_id) = ${trusteeId} AND liquid_answer_carries(${questionId}, d.user_id) IS NULL`,

  /** The direct delegators, once the trustee's answer carries their weight. */
  carriedDelegators: (questionId: number, trusteeId: number) =>
    sql`SELECT * FROM (${recipients.directDelegators(questionId, trusteeId)}) d WHERE liquid_answer_carries(${questionId}, ${trusteeId})`,

  /** Whoever answered the collection itself and has not heard of it growing in the last day. */
  collectionAnswerersNotToldToday: (collectionId: number) => {
    const answeredIt = (table: string) => sql`SELECT v.user_id FROM ${sql.table(table)} v WHERE v.collection_id = ${collectionId}`
    return sql`SELECT a.user_id FROM (${answeredIt('question_votes')} UNION ${answeredIt('question_choice_votes')}) a
      WHERE NOT EXISTS (SELECT 1 FROM notifications n WHERE n.kind = 'collection_gained_questions' AND n.user_id = a.user_id
        AND n.payload ->> 'collection' = ${String(collectionId)} AND n.created_at > now() - interval '1 day')`
  },
}

/** Subject queries: what a message is about. */
export const subjects = {
  question: (questionId: number) => sql<string>`SELECT question FROM questions WHERE id = ${questionId}`,
  collection: (collectionId: number) => sql<string>`SELECT name FROM question_collections WHERE id = ${collectionId}`,
  group: (groupId: number) => sql<string>`SELECT name FROM groups WHERE id = ${groupId}`,
}
