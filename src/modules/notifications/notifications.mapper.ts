import { iso, isoOrNull } from '../../core/time.ts'
import { loadUserSummaries, summaryOf } from '../users/user-summaries.ts'
import type { NotificationKind } from '../../engines/notifications/notification-kinds.ts'
import type { NotificationRow } from './notifications.repository.ts'
import type { Notification } from './notifications.schemas.ts'
import type { ViewContext } from '../../core/view-context.ts'

/** Notifications as the API shows them, their actors read in one statement for the lot. */
export async function toNotifications(context: ViewContext, rows: NotificationRow[]): Promise<Notification[]> {
  const actors = await loadUserSummaries(
    context,
    rows.flatMap((row) => (row.actor_id === null ? [] : [row.actor_id])),
  )
  return rows.map((row) => ({
    id: row.id,
    url: context.urls.detail('notifications', row.id),
    kind: row.kind as NotificationKind,
    message: row.message,
    link: row.url === null ? null : context.urls.path(row.url),
    actor: row.actor_id === null ? null : summaryOf(actors.get(row.actor_id)),
    data: (row.payload ?? {}) as Record<string, unknown>,
    read: row.read_at !== null,
    read_at: isoOrNull(row.read_at),
    created_at: iso(row.created_at),
  }))
}
