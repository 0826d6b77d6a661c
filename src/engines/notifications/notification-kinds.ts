/** The events that notify someone, and what each does unless its recipient chose otherwise. */
export const NOTIFICATION_KINDS = [
  'comment_on_question',
  'comment_reply',
  'friend_request',
  'friend_accepted',
  'followed_user_asked',
  'delegate_answered',
  'delegate_withdrew',
  'collection_gained_questions',
  'group_invite',
  'group_join_decision',
] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

export const CHANNELS = ['in_app', 'email', 'push'] as const
export type Channel = (typeof CHANNELS)[number]
export type Channels = Record<Channel, boolean>

export const DIGEST_FREQUENCIES = ['daily', 'weekly', 'never'] as const
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number]

/** How often a digest may go out, per frequency. */
export const DIGEST_PERIOD_DAYS: Record<Exclude<DigestFrequency, 'never'>, number> = { daily: 1, weekly: 7 }

const PERSONAL: Channels = { in_app: true, email: true, push: true }
const BROAD: Channels = { in_app: true, email: true, push: false }

/**
 * Things addressed to one person (a reply, a request, a decision) reach the phone; things that happen in
 * bulk (everyone a user follows asking, a delegate answering daily) wait for the app and the digest.
 */
export const DEFAULT_CHANNELS: Record<NotificationKind, Channels> = {
  comment_on_question: PERSONAL,
  comment_reply: PERSONAL,
  friend_request: PERSONAL,
  friend_accepted: PERSONAL,
  followed_user_asked: BROAD,
  delegate_answered: BROAD,
  delegate_withdrew: PERSONAL,
  collection_gained_questions: BROAD,
  group_invite: PERSONAL,
  group_join_decision: PERSONAL,
}

export const DEFAULT_DIGEST: DigestFrequency = 'weekly'

/** What notification_settings.settings holds: only what differs from the defaults need be there. */
export interface StoredSettings {
  digest?: DigestFrequency
  kinds?: Partial<Record<NotificationKind, Partial<Channels>>>
}

export interface EffectiveSettings {
  digest: DigestFrequency
  kinds: Record<NotificationKind, Channels>
}

/** The settings in force: the stored choices over the defaults (anything unknown in storage is ignored). */
export function effectiveSettings(stored: StoredSettings | null | undefined): EffectiveSettings {
  const digest = DIGEST_FREQUENCIES.includes(stored?.digest as DigestFrequency) ? stored!.digest! : DEFAULT_DIGEST
  const kinds = Object.fromEntries(
    NOTIFICATION_KINDS.map((kind) => {
      const chosen = stored?.kinds?.[kind] ?? {}
      const channels = Object.fromEntries(
        CHANNELS.map((channel) => [channel, typeof chosen[channel] === 'boolean' ? chosen[channel] : DEFAULT_CHANNELS[kind][channel]]),
      )
      return [kind, channels as Channels]
    }),
  ) as Record<NotificationKind, Channels>
  return { digest, kinds }
}
