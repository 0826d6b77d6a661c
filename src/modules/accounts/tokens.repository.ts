import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { hashSecret, newToken } from '../../core/secrets.ts'

/** Sign-in tokens: random, stored as SHA-256 only, revoked rather than deleted so their use stays auditable. */
export function tokensRepository(db: Kysely<Database>) {
  return {
    async issue(userId: number, name: string): Promise<string> {
      const key = newToken()
      await db
        .insertInto('auth_tokens')
        .values({ user_id: userId, key_hash: hashSecret(key), name: name.slice(0, 100) })
        .execute()
      return key
    },

    async revoke(tokenId: number): Promise<void> {
      await db
        .updateTable('auth_tokens')
        .set({ revoked_at: sql`now()` })
        .where('id', '=', tokenId)
        .where('revoked_at', 'is', null)
        .execute()
    },

    /** Revokes every token of the user but the one given (none when null). */
    async revokeAllOf(userId: number, except: number | null = null): Promise<void> {
      let query = db
        .updateTable('auth_tokens')
        .set({ revoked_at: sql`now()` })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
      if (except !== null) query = query.where('id', '<>', except)
      await query.execute()
    },

    listActive(userId: number) {
      return db
        .selectFrom('auth_tokens')
        .select(['id', 'name', 'created_at', 'last_used_at'])
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .orderBy('id')
        .execute()
    },

    async ownerOf(tokenId: number): Promise<number | undefined> {
      const row = await db
        .selectFrom('auth_tokens')
        .select('user_id')
        .where('id', '=', tokenId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return row?.user_id
    },
  }
}
