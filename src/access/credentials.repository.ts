import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/database.ts'

/** What every request's credentials are checked against: application keys and sign-in tokens, by their hashes. */
export function credentialsRepository(db: Kysely<Database>) {
  return {
    appKey(keyHash: string) {
      return db.selectFrom('app_keys').select(['id', 'revoked_at']).where('key_hash', '=', keyHash).executeTakeFirst()
    },

    /** At most one write a minute per key: last use is for audits, not accounting. */
    async markAppKeyUsed(id: number): Promise<void> {
      await db
        .updateTable('app_keys')
        .set({ last_used_at: sql`now()` })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]))
        .execute()
    },

    /** The token (by its hash) with what decides whether it may act: its own state and its user's. */
    signIn(keyHash: string) {
      return db
        .selectFrom('auth_tokens')
        .innerJoin('users', 'users.id', 'auth_tokens.user_id')
        .select([
          'users.id',
          'users.is_staff',
          'users.is_active',
          'users.is_deleted',
          'auth_tokens.revoked_at',
          'auth_tokens.id as token_id',
          'auth_tokens.last_used_at',
        ])
        .where('auth_tokens.key_hash', '=', keyHash)
        .executeTakeFirst()
    },

    async markTokenUsed(tokenId: number): Promise<void> {
      await db
        .updateTable('auth_tokens')
        .set({ last_used_at: sql`now()` })
        .where('id', '=', tokenId)
        .execute()
    },
  }
}
