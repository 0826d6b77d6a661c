import { hashSecret, newToken } from '../../../src/core/secrets.ts'
import type { OwnedObjects } from './index.ts'

/** Objects of the account tree and the push devices that belong to one user. */
function pushDevice(kind: 'gcm' | 'apns'): OwnedObjects[string] {
  return async (db, ownerId) => {
    const registration = newToken() + newToken()
    await db.insertInto('push_devices').values({ user_id: ownerId, kind, name: 'walk', registration_id: registration }).execute()
    return { registration_id: registration }
  }
}

export const owned: OwnedObjects = {
  '/auth/tokens/:id/': async (db, ownerId) => {
    const row = await db
      .insertInto('auth_tokens')
      .values({ user_id: ownerId, key_hash: hashSecret(newToken()), name: 'walk' })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { id: String(row.id) }
  },
  '/api-push/device/gcm/:registration_id': pushDevice('gcm'),
  '/api-push/device/gcm/:registration_id/': pushDevice('gcm'),
  '/api-push/device/apns/:registration_id': pushDevice('apns'),
  '/api-push/device/apns/:registration_id/': pushDevice('apns'),
}
