import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { hashSecret, newSecret } from '../../core/secrets.ts'

/** Application keys (spec 5): shown once at creation, stored only as a hash. */
export function appKeysRepository(db: Kysely<Database>) {
  return {
    async create(name: string): Promise<{ id: number; key: string }> {
      const key = newSecret()
      const row = await db
        .insertInto('app_keys')
        .values({ name, key_hash: hashSecret(key), key_prefix: key.slice(0, 8) })
        .returning('id')
        .executeTakeFirstOrThrow()
      return { id: row.id, key }
    },

    list() {
      return db
        .selectFrom('app_keys')
        .select(['id', 'name', 'key_prefix', 'created_at', 'last_used_at', 'revoked_at'])
        .orderBy('id')
        .execute()
    },

    async revoke(id: number): Promise<boolean> {
      const result = await db
        .updateTable('app_keys')
        .set({ revoked_at: sql`now()` })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },
  }
}
