import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { fieldError } from '../../core/errors.ts'
import { NOTIFICATION_KINDS, type NotificationKind, type StoredSettings } from '../../engines/notifications/notification-kinds.ts'
import { notificationsRepository } from './notifications.repository.ts'
import type { NotificationSettingsUpdate } from './notifications.schemas.ts'

/** Applies only what is sent: the digest frequency, and per kind the channels named; the rest keep their setting. */
export async function changeNotificationSettings(
  db: Kysely<Database>,
  userId: number,
  change: NotificationSettingsUpdate,
): Promise<StoredSettings> {
  const unknown = Object.keys(change.kinds ?? {}).filter((kind) => !NOTIFICATION_KINDS.includes(kind as NotificationKind))
  if (unknown.length)
    throw fieldError('kinds', `Not a kind of notification: ${unknown.join(', ')}. The kinds are ${NOTIFICATION_KINDS.join(', ')}.`)
  return notificationsRepository(db).changeSettings(userId, (current) => {
    const kinds = { ...current?.kinds }
    for (const [kind, channels] of Object.entries(change.kinds ?? {}) as [NotificationKind, Record<string, boolean>][])
      kinds[kind] = { ...kinds[kind], ...channels }
    return { ...current, ...(change.digest ? { digest: change.digest } : {}), kinds }
  })
}
