import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import type { OwnedObjects } from './index.ts'

/** Follow links that belong to their follower. */
let serial = 0
const unique = (prefix: string) => `${prefix}-${process.pid}-${++serial}`

async function tag(db: Kysely<Database>) {
  const text = unique('Walk tag')
  return db
    .insertInto('tags')
    .values({ text, slug: text.toLowerCase().replace(/\s/g, '-') })
    .returning('id')
    .executeTakeFirstOrThrow()
}

const id = (row: { id: number }) => ({ id: String(row.id) })

export const owned: OwnedObjects = {
  '/api/following_users/:id/': async (db, ownerId) => {
    const username = unique('walk-followed')
    const followed = await db
      .insertInto('users')
      .values({ username, email: `${username}@example.net` })
      .returning('id')
      .executeTakeFirstOrThrow()
    return id(
      await db
        .insertInto('following_users')
        .values({ user_id: ownerId, following_id: followed.id })
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
  },
  '/api/following_tags/:id/': async (db, ownerId) => {
    const followed = await tag(db)
    return id(
      await db.insertInto('following_tags').values({ user_id: ownerId, tag_id: followed.id }).returning('id').executeTakeFirstOrThrow(),
    )
  },
  '/api/tags/:id/follow/': async (db) => id(await tag(db)),
  '/api/tags/:id/unfollow/': async (db) => id(await tag(db)),
}
