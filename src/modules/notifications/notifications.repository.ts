import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, Notifications } from '../../db/database.ts'
import { resolvePage, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { NotificationKind, StoredSettings } from '../../engines/notifications/notification-kinds.ts'

export type NotificationRow = Selectable<Notifications>

export interface NotificationFilters {
  unread?: boolean
  kinds?: NotificationKind[]
}

/** A user's notifications: those shown in the app (in_app), newest first. */
export function notificationsRepository(db: Kysely<Database>) {
  const inbox = (userId: number, filters: NotificationFilters = {}) => {
    let query = db.selectFrom('notifications').where('user_id', '=', userId).where('in_app', '=', true)
    if (filters.unread !== undefined) query = query.where('read_at', filters.unread ? 'is' : 'is not', null)
    if (filters.kinds?.length) query = query.where('kind', 'in', filters.kinds)
    return query
  }

  return {
    /**
     * One page, its count and the unread count (whatever the filters), newest first. The page statement carries
     * both counts (each through a partial index); they are counted apart only for `page=last` or past the end.
     */
    async page(userId: number, filters: NotificationFilters, list: ListRequest): Promise<RowsPage<NotificationRow> & { unread: number }> {
      let counts = list.page.last ? await this.counts(userId, filters) : null
      const page = resolvePage(list.page, counts?.total ?? 0)
      const rows = await inbox(userId, filters)
        .selectAll()
        .select([
          sql<number>`count(*) over ()`.as('total'),
          (eb) =>
            eb
              .selectFrom('notifications as u')
              .select((inner) => inner.fn.countAll<number>().as('n'))
              .where('u.user_id', '=', userId)
              .where('u.in_app', '=', true)
              .where('u.read_at', 'is', null)
              .as('unread'),
        ])
        .orderBy('id', 'desc')
        .limit(page.size)
        .offset(page.offset)
        .execute()
      if (rows.length > 0) counts = { total: Number(rows[0].total), unread: Number(rows[0].unread) }
      counts ??= await this.counts(userId, filters)
      return { page, count: counts.total, unread: counts.unread, rows }
    },

    /** Counts when the page asked for is past the end (the page statement then returns no row to carry them). */
    async counts(userId: number, filters: NotificationFilters): Promise<{ total: number; unread: number }> {
      const [total, unread] = await Promise.all([
        inbox(userId, filters)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
        inbox(userId, { unread: true })
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ])
      return { total: Number(total.n), unread: Number(unread.n) }
    },

    async find(id: number): Promise<NotificationRow | undefined> {
      return db.selectFrom('notifications').selectAll().where('id', '=', id).where('in_app', '=', true).executeTakeFirst()
    },

    async owner(id: number): Promise<number | undefined> {
      return (await db.selectFrom('notifications').select('user_id').where('id', '=', id).where('in_app', '=', true).executeTakeFirst())
        ?.user_id
    },

    /** Marks it read (keeping the first reading time) or unread. */
    async setRead(id: number, read: boolean): Promise<NotificationRow | undefined> {
      return db
        .updateTable('notifications')
        .set({ read_at: read ? sql<Date>`coalesce(read_at, now())` : null })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
    },

    async markAllRead(userId: number): Promise<number> {
      const result = await db
        .updateTable('notifications')
        .set({ read_at: sql<Date>`now()` })
        .where('user_id', '=', userId)
        .where('in_app', '=', true)
        .where('read_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    },

    async remove(id: number): Promise<void> {
      await db.deleteFrom('notifications').where('id', '=', id).execute()
    },

    async storedSettings(userId: number): Promise<StoredSettings | null> {
      const row = await db.selectFrom('notification_settings').select('settings').where('user_id', '=', userId).executeTakeFirst()
      return (row?.settings as StoredSettings | undefined) ?? null
    },

    /** Replaces the stored choices with `merge(current)`, the row locked so that concurrent changes both apply. */
    async changeSettings(userId: number, merge: (current: StoredSettings | null) => StoredSettings): Promise<StoredSettings> {
      return db.transaction().execute(async (trx) => {
        await trx
          .insertInto('notification_settings')
          .values({ user_id: userId })
          .onConflict((oc) => oc.column('user_id').doNothing())
          .execute()
        const row = await trx
          .selectFrom('notification_settings')
          .select('settings')
          .where('user_id', '=', userId)
          .forUpdate()
          .executeTakeFirstOrThrow()
        const next = merge(row.settings as StoredSettings)
        await trx
          .updateTable('notification_settings')
          .set({ settings: JSON.stringify(next), modified_at: sql<Date>`now()` })
          .where('user_id', '=', userId)
          .execute()
        return next
      })
    },
  }
}
