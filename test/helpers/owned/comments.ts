import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import { insertQuestion, insertUser } from '../fixtures.ts'
import type { OwnedObjects } from './index.ts'

async function commentBy(db: Kysely<Database>, userId: number) {
  const author = await insertUser(db)
  const question = await insertQuestion(db, author.id)
  return db
    .insertInto('comments')
    .values({ question_id: question.id, user_id: userId, text: 'A comment of the walk' })
    .returning(['id', 'question_id'])
    .executeTakeFirstOrThrow()
}

/** Comments, votes on comments and reasons of answers that belong to one user. */
export const owned: OwnedObjects = {
  '/api/comments/:id/': async (db, ownerId) => ({ id: String((await commentBy(db, ownerId)).id) }),
  '/api/comment_votes/:id/': async (db, ownerId) => {
    const comment = await commentBy(db, (await insertUser(db)).id)
    const vote = await db
      .insertInto('comment_votes')
      .values({ comment_id: comment.id, user_id: ownerId, value: 5 })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { id: String(vote.id) }
  },
  '/api/vote_comments/:id/': async (db, ownerId) => {
    const comment = await commentBy(db, ownerId)
    const vote = await db
      .insertInto('question_votes')
      .values({ question_id: comment.question_id, user_id: ownerId, value: 4 })
      .returning('id')
      .executeTakeFirstOrThrow()
    const reason = await db
      .insertInto('vote_comments')
      .values({ vote_id: vote.id, comment_id: comment.id })
      .returning('id')
      .executeTakeFirstOrThrow()
    return { id: String(reason.id) }
  },
}
