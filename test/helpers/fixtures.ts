import type { Insertable, Kysely } from 'kysely'
import type { Database, Questions, Users } from '../../src/db/database.ts'

/** Small rows inserted by tests so that each filter has data that tells it apart from its neighbours. */
let serial = 0
const unique = (prefix: string) => `${prefix}-${process.pid}-${++serial}`

export async function insertUser(db: Kysely<Database>, values: Partial<Insertable<Users>> = {}) {
  const username = values.username ?? unique('user')
  return db
    .insertInto('users')
    .values({ username, email: `${username}@example.net`, first_name: 'Test', last_name: 'Person', ...values })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function insertTag(db: Kysely<Database>, text = unique('Tag')) {
  return db.insertInto('tags').values({ text, slug: text.toLowerCase() }).returningAll().executeTakeFirstOrThrow()
}

export async function insertQuestion(db: Kysely<Database>, userId: number, values: Partial<Insertable<Questions>> = {}) {
  const slug = unique('question')
  return db
    .insertInto('questions')
    .values({ user_id: userId, question: `Question ${slug}`, slug, ...values })
    .returning(['id', 'question', 'slug', 'user_id'])
    .executeTakeFirstOrThrow()
}

export async function insertGroup(db: Kysely<Database>, name = unique('Group')) {
  return db.insertInto('groups').values({ name, slug: name.toLowerCase() }).returningAll().executeTakeFirstOrThrow()
}

/** A census record's `ages`: the given people at single years of age 0..90, nobody elsewhere. */
export function censusAges(people: Record<number, number>): number[] {
  return Array.from({ length: 91 }, (_, age) => people[age] ?? 0)
}
