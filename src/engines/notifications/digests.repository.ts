import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'

/** The statements of a digest run (digests.ts): who waits for one, what it lists, and marking it mailed. */
export function digestsRepository(db: Db) {
  const stillUnmailed = (userId: number) =>
    db.updateTable('notifications').where('user_id', '=', userId).where('email', '=', true).where('emailed_at', 'is', null)
  return {
    /** Users with notifications chosen for e-mail and not yet mailed, at most `limit`. */
    async waitingUsers(limit: number): Promise<number[]> {
      const rows = await db
        .selectFrom('notifications')
        .select('user_id')
        .distinct()
        .where('email', '=', true)
        .where('emailed_at', 'is', null)
        .limit(limit)
        .execute()
      return rows.map((row) => row.user_id)
    },

    /** The recipient and their digest settings, their row locked (skipped when another run holds it). */
    lockRecipient(userId: number) {
      return db
        .selectFrom('users as u')
        .leftJoin('notification_settings as s', 's.user_id', 'u.id')
        .select(['u.email', 'u.is_active', 'u.is_deleted', 'u.username', 's.settings', 's.last_digest_at'])
        .where('u.id', '=', userId)
        .forNoKeyUpdate('u')
        .skipLocked()
        .executeTakeFirst()
    },

    /** Marks every unmailed notification of the user mailed, for someone who takes no digest. */
    async markAllMailed(userId: number): Promise<void> {
      await stillUnmailed(userId)
        .set({ emailed_at: sql<Date>`now()` })
        .execute()
    },

    /** The user's notifications chosen for e-mail and not yet mailed, in id order. */
    unmailed(userId: number) {
      return db
        .selectFrom('notifications')
        .select(['id', 'message', 'url', 'created_at'])
        .where('user_id', '=', userId)
        .where('email', '=', true)
        .where('emailed_at', 'is', null)
        .orderBy('id')
        .execute()
    },

    /** Marks these notifications mailed and stamps the user's last digest. */
    async markMailed(userId: number, ids: number[]): Promise<void> {
      await db
        .updateTable('notifications')
        .set({ emailed_at: sql<Date>`now()` })
        .where('id', 'in', ids)
        .execute()
      await db
        .insertInto('notification_settings')
        .values({ user_id: userId, last_digest_at: sql<Date>`now()` })
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ last_digest_at: sql<Date>`now()` }))
        .execute()
    },
  }
}
