import { sql, type Kysely } from 'kysely'
import type { Database } from '../db/database.ts'

/** What every request's credentials are checked against: application keys and sign-in tokens, by their hashes. */
export function credentialsRepository(db: Kysely<Database>) {
  return {
    appKey(keyHash: string) {
      return db.selectFrom('app_keys').select(['id', 'revoked_at']).where('key_hash', '=', keyHash).executeTakeFirst()
    },

    /**
     * Keys used since the last write, at most one write a minute per key. Rows are taken in id order and a row being
     * changed (revoked) is skipped: two processes writing marks never wait on each other or on a revocation.
     */
    async markAppKeysUsed(ids: number[]): Promise<void> {
      await sql`
        UPDATE app_keys k SET last_used_at = now()
        FROM (SELECT id FROM app_keys WHERE id = ANY(${ids}::int[])
                AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
              ORDER BY id FOR UPDATE SKIP LOCKED) used
        WHERE k.id = used.id`.execute(db)
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

    /** Tokens used since the last write, as markAppKeysUsed. */
    async markTokensUsed(ids: number[]): Promise<void> {
      await sql`
        UPDATE auth_tokens t SET last_used_at = now()
        FROM (SELECT id FROM auth_tokens WHERE id = ANY(${ids}::int[]) ORDER BY id FOR UPDATE SKIP LOCKED) used
        WHERE t.id = used.id`.execute(db)
    },
  }
}
