import type { OwnedObjects } from './index.ts'

/** A shareable link belongs to whoever made it. */
export const owned: OwnedObjects = {
  '/api/create_shareable_link/:id/': async (db, ownerId) => {
    const slug = `walk-share-${process.pid}-${Math.random().toString(36).slice(2)}`
    const question = await db
      .insertInto('questions')
      .values({ user_id: ownerId, question: slug, slug })
      .returning('id')
      .executeTakeFirstOrThrow()
    const row = await db
      .insertInto('shareable_links')
      .values({ user_id: ownerId, question_id: question.id, code: slug, target_url: `/api/questions/${question.id}/` })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { id: String(row.id) }
  },
}
