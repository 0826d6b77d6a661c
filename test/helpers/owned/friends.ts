import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import type { OwnedObjects } from './index.ts'

/** Friend requests: the detail belongs to either person, accepting and declining to the person asked. */
let serial = 0

async function someone(db: Kysely<Database>) {
  const username = `walk-friend-${process.pid}-${++serial}`
  return db
    .insertInto('users')
    .values({ username, email: `${username}@example.net` })
    .returning('id')
    .executeTakeFirstOrThrow()
}

async function request(db: Kysely<Database>, userId: number, friendId: number) {
  const row = await db.insertInto('friendships').values({ user_id: userId, friend_id: friendId }).returning('id').executeTakeFirstOrThrow()
  return { id: String(row.id) }
}

export const owned: OwnedObjects = {
  '/api/friends/:id/': async (db, ownerId) => request(db, ownerId, (await someone(db)).id),
  '/api/friends/:id/accept/': async (db, ownerId) => request(db, (await someone(db)).id, ownerId),
  '/api/friends/:id/decline/': async (db, ownerId) => request(db, (await someone(db)).id, ownerId),
}
