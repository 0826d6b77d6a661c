import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'

/** The statements of a push delivery run (push-delivery.ts). */
export function pushDeliveryRepository(db: Db) {
  return {
    /**
     * Claims up to `limit` due notifications (push chosen, not yet pushed) with their actor, FOR UPDATE SKIP
     * LOCKED, so deliverers in several processes never push one twice.
     */
    claimDue(limit: number) {
      return db
        .selectFrom('notifications as n')
        .leftJoin('users as a', 'a.id', 'n.actor_id')
        .select([
          'n.id',
          'n.user_id',
          'n.message',
          'n.url',
          'n.created_at',
          'a.id as actor_id',
          'a.username',
          'a.first_name',
          'a.last_name',
        ])
        .where('n.push', '=', true)
        .where('n.pushed_at', 'is', null)
        .orderBy('n.id')
        .limit(limit)
        .forUpdate('n')
        .skipLocked()
        .execute()
    },

    /** The active devices of these users. */
    activeDevices(userIds: number[]) {
      return db
        .selectFrom('push_devices')
        .select(['id', 'user_id', 'kind', 'registration_id'])
        .where('user_id', 'in', userIds)
        .where('active', '=', true)
        .execute()
    },

    /** Deactivates devices the provider reports gone. */
    async deactivateDevices(ids: number[]): Promise<void> {
      if (ids.length === 0) return
      await db
        .updateTable('push_devices')
        .set({ active: false, modified_at: sql<Date>`now()` })
        .where('id', 'in', ids)
        .execute()
    },

    /** Marks these notifications pushed. */
    async markPushed(ids: number[]): Promise<void> {
      if (ids.length === 0) return
      await db
        .updateTable('notifications')
        .set({ pushed_at: sql<Date>`now()` })
        .where('id', 'in', ids)
        .execute()
    },
  }
}
