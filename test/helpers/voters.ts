import type { Kysely } from 'kysely'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import type { Database } from '../../src/db/database.ts'

export interface Voter {
  id: number
  token: string
}

/** The first `count` active people of a seeded database, each with a new sign-in token named `name`. */
export async function votersWithTokens(db: Kysely<Database>, count: number, name: string): Promise<Voter[]> {
  const users = await db
    .selectFrom('users')
    .select('id')
    .where('is_active', '=', true)
    .where('is_deleted', '=', false)
    .orderBy('id')
    .limit(count)
    .execute()
  const voters = users.map(({ id }) => ({ id, token: newToken() }))
  if (voters.length > 0)
    await db
      .insertInto('auth_tokens')
      .values(voters.map(({ id, token }) => ({ user_id: id, key_hash: hashSecret(token), name })))
      .execute()
  return voters
}
