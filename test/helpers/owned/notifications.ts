import type { OwnedObjects } from './index.ts'

/** A notification belongs to the person it was written for. */
export const owned: OwnedObjects = {
  '/api/notifications/:id/': async (db, ownerId) => {
    const row = await db
      .insertInto('notifications')
      .values({ user_id: ownerId, kind: 'friend_request', message: 'Someone asked to be your friend' })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { id: String(row.id) }
  },
}
