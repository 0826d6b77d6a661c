import type { Kysely } from 'kysely'
import type { Database } from '../../../src/db/database.ts'
import type { OwnedObjects } from './index.ts'

/** Delegations that belong to the user who delegates: on a fresh tag, and on a fresh question nobody answered. */
let serial = 0
const unique = (prefix: string) => `${prefix}-${process.pid}-${++serial}`

async function someone(db: Kysely<Database>) {
  const username = unique('walk-trustee')
  return db
    .insertInto('users')
    .values({ username, email: `${username}@example.net` })
    .returning('id')
    .executeTakeFirstOrThrow()
}

const id = (row: { id: number }) => ({ id: String(row.id) })

export const owned: OwnedObjects = {
  '/api/tag_delegations/:id/': async (db, ownerId) => {
    const text = unique('Walk delegation tag')
    const tag = await db
      .insertInto('tags')
      .values({ text, slug: text.toLowerCase().replace(/\s/g, '-') })
      .returning('id')
      .executeTakeFirstOrThrow()
    const trustee = await someone(db)
    return id(
      await db
        .insertInto('tag_delegations')
        .values({ user_id: ownerId, tag_id: tag.id, trustee_id: trustee.id })
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
  },
  '/api/question_delegation/:id/': async (db, ownerId) => {
    const author = await someone(db)
    const slug = unique('walk-delegated-question')
    const question = await db
      .insertInto('questions')
      .values({ user_id: author.id, question: `Walk ${slug}`, slug })
      .returning('id')
      .executeTakeFirstOrThrow()
    const trustee = await someone(db)
    return id(
      await db
        .insertInto('question_delegations')
        .values({ user_id: ownerId, question_id: question.id, trustee_id: trustee.id })
        .returning('id')
        .executeTakeFirstOrThrow(),
    )
  },
}
