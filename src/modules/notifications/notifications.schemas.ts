import { Type, type Static } from 'typebox'
import { ListQuery, Nullable, Page, Timestamp, Url } from '../../http/schemas.ts'
import { UserSummary } from '../users/user-summaries.ts'
import {
  DIGEST_FREQUENCIES,
  NOTIFICATION_KINDS,
  type Channel,
  type NotificationKind,
} from '../../engines/notifications/notification-kinds.ts'

const Kind = Type.Enum([...NOTIFICATION_KINDS], { description: `what happened: ${NOTIFICATION_KINDS.join(', ')}` })

export const Notification = Type.Object({
  id: Type.Integer(),
  url: Url,
  kind: Kind,
  message: Type.String({ description: 'one line for a person to read' }),
  link: Nullable(Url), // the resource it is about: a question, comment, friendship, group or collection
  actor: Nullable(UserSummary), // null once their account is gone
  data: Type.Record(Type.String(), Type.Unknown(), { description: 'the ids it concerns, by name' }),
  read: Type.Boolean(),
  read_at: Nullable(Timestamp),
  created_at: Timestamp,
})
export type Notification = Static<typeof Notification>

/** The envelope of spec 2.1 plus how many of the caller's notifications are unread (whatever the filters). */
export const NotificationPage = Type.Object({ ...Page(Notification).properties, unread_count: Type.Integer({ minimum: 0 }) })

const Flag = Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')])

export const NotificationListQuery = ListQuery({
  unread: Type.Optional({ ...Flag, description: 'true: only unread; false: only read' }),
  kind: Type.Optional(
    Type.String({
      maxLength: 1000,
      pattern: `^(${NOTIFICATION_KINDS.join('|')})(,(${NOTIFICATION_KINDS.join('|')}))*$`,
      description: 'comma-separated kinds',
    }),
  ),
})
export type NotificationListQuery = Static<typeof NotificationListQuery>

export const NotificationUpdate = Type.Object({ read: Type.Boolean({ description: 'true marks it read, false unread' }) })

export const MarkedRead = Type.Object({ marked: Type.Integer({ minimum: 0, description: 'how many were unread and are now read' }) })

const CHANNEL_MEANINGS: Record<Channel, string> = {
  in_app: 'listed in notifications',
  email: 'in the e-mail digest',
  push: 'pushed to your phones',
}
const ChannelFlags = Type.Object(
  {
    in_app: Type.Boolean({ description: CHANNEL_MEANINGS.in_app }),
    email: Type.Boolean({ description: CHANNEL_MEANINGS.email }),
    push: Type.Boolean({ description: CHANNEL_MEANINGS.push }),
  },
  { additionalProperties: false },
)
const ChannelChanges = Type.Partial(ChannelFlags, { additionalProperties: false })

const Digest = Type.Enum([...DIGEST_FREQUENCIES], { description: 'how often the e-mail digest may come: daily, weekly or never' })

export const NotificationSettings = Type.Object({
  url: Url,
  digest: Digest,
  kinds: Type.Object(
    Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, ChannelFlags])) as Record<NotificationKind, typeof ChannelFlags>,
  ),
})

export const NotificationSettingsUpdate = Type.Object(
  {
    digest: Type.Optional(Digest),
    kinds: Type.Optional(
      Type.Record(Type.String(), ChannelChanges, {
        maxProperties: NOTIFICATION_KINDS.length,
        description: `per kind (${NOTIFICATION_KINDS.join(', ')}), the channels to change; the others keep their setting`,
      }),
    ),
  },
  { additionalProperties: false },
)
export type NotificationSettingsUpdate = Static<typeof NotificationSettingsUpdate>
