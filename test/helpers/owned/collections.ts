import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import type { OwnedObjects } from './index.ts'

/** Collections, their items and tags, owned by one user. */
let serial = 0

async function collection(db: Kysely<Database>, ownerId: number) {
  return db
    .insertInto('question_collections')
    .values({ user_id: ownerId, name: `Walk collection ${process.pid}-${++serial}` })
    .returning('id')
    .executeTakeFirstOrThrow()
}

const id = (row: { id: number }) => ({ id: String(row.id) })

async function item(db: Kysely<Database>, ownerId: number) {
  const parent = await collection(db, ownerId)
  const row = await db
    .insertInto('question_collection_items')
    .values({ parent_id: parent.id, type: 'B', content: JSON.stringify({ title: 'Walk', text: '' }), order: 0 })
    .returning('id')
    .executeTakeFirstOrThrow()
  await db.updateTable('question_collections').set({ item_count: 1 }).where('id', '=', parent.id).execute()
  return id(row)
}

export const owned: OwnedObjects = {
  '/api/question_collections/:id/': async (db, ownerId) => id(await collection(db, ownerId)),
  '/api/question_collections_full/:id/': async (db, ownerId) => id(await collection(db, ownerId)),
  '/api/question_collections/:id/update_order/': async (db, ownerId) => id(await collection(db, ownerId)),
  '/api/question_collections/:id/copy/': async (db, ownerId) => id(await collection(db, ownerId)),
  '/api/question_collection_items/:id/': item,
  '/api/question_collection_items_full/:id/': item,
  '/api/question_collection_tags/:id/': async (db, ownerId) => {
    const parent = await collection(db, ownerId)
    const tag = await db.selectFrom('tags').select('id').limit(1).executeTakeFirstOrThrow()
    return id(
      await db
        .insertInto('question_collection_tags')
        .values({ collection_id: parent.id, tag_id: tag.id })
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
  },
}
