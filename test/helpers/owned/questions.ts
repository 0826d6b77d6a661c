import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import { insertQuestion } from '../fixtures.ts'
import type { OwnedObjects } from './index.ts'

/** Questions and what hangs off them, owned by one user: their author (links, tags, choices) or voter. */
async function ownQuestion(db: Kysely<Database>, ownerId: number) {
  return insertQuestion(db, ownerId)
}

async function ownLink(db: Kysely<Database>, ownerId: number) {
  const question = await ownQuestion(db, ownerId)
  return db
    .insertInto('question_links')
    .values({ question_id: question.id, user_id: ownerId, link: 'https://example.org/reading' })
    .returning('id')
    .executeTakeFirstOrThrow()
}

async function ownConnection(db: Kysely<Database>, ownerId: number) {
  const from = await ownQuestion(db, ownerId)
  const to = await ownQuestion(db, ownerId)
  return db
    .insertInto('question_question_connections')
    .values({ from_question_id: from.id, to_question_id: to.id, user_id: ownerId })
    .returning('id')
    .executeTakeFirstOrThrow()
}

export const owned: OwnedObjects = {
  '/api/questions/:id/': async (db, ownerId) => ({ id: String((await ownQuestion(db, ownerId)).id) }),
  '/api/question_links/:id/': async (db, ownerId) => ({ id: String((await ownLink(db, ownerId)).id) }),
  '/api/question_tags/:id/': async (db, ownerId) => {
    const question = await ownQuestion(db, ownerId)
    const tag = await db
      .insertInto('tags')
      .values({ text: `Walk ${question.slug}`, slug: `walk-${question.slug}` })
      .returning('id')
      .executeTakeFirstOrThrow()
    const row = await db
      .insertInto('question_tags')
      .values({ question_id: question.id, tag_id: tag.id, position: 0 })
      .returning('id')
      .executeTakeFirstOrThrow()
    await db.updateTable('questions').set({ topic_id: tag.id }).where('id', '=', question.id).execute()
    await db.updateTable('tags').set({ questions_count: 1 }).where('id', '=', tag.id).execute()
    return { id: String(row.id) }
  },
  '/api/question_choices/:id/': async (db, ownerId) => {
    const question = await ownQuestion(db, ownerId)
    await db.updateTable('questions').set({ subtype: 'mcq' }).where('id', '=', question.id).execute()
    const rows = await db
      .insertInto('question_choices')
      .values(['Yes', 'No', 'Maybe'].map((text, store_number) => ({ question_id: question.id, text, store_number })))
      .returning('id')
      .execute()
    return { id: String(rows[2].id) }
  },
  '/api/question_question_connections/:id/': async (db, ownerId) => ({ id: String((await ownConnection(db, ownerId)).id) }),
  '/api/question_question_connection_votes/:id/': async (db, ownerId) => {
    const connection = await ownConnection(db, ownerId)
    const vote = await db
      .insertInto('question_question_connection_votes')
      .values({ connection_id: connection.id, user_id: ownerId, value: 4 })
      .returning('id')
      .executeTakeFirstOrThrow()
    await db.updateTable('question_question_connections').set({ direct_high: 1 }).where('id', '=', connection.id).execute()
    return { id: String(vote.id) }
  },
  '/api/question_link_votes/:id/': async (db, ownerId) => {
    const link = await ownLink(db, ownerId)
    const vote = await db
      .insertInto('question_link_votes')
      .values({ link_id: link.id, user_id: ownerId, value: 2 })
      .returning('id')
      .executeTakeFirstOrThrow()
    await db.updateTable('question_links').set({ direct_low: 1 }).where('id', '=', link.id).execute()
    return { id: String(vote.id) }
  },
}
