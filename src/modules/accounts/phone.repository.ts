import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'

/** Phone numbers of accounts, and the codes sent to verify them. */
export function phoneRepository(db: Kysely<Database>) {
  return {
    async verifiedByAnother(phone: string, userId: number): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where('phone', '=', phone)
        .where('is_phone_verified', '=', true)
        .where('id', '<>', userId)
        .executeTakeFirst()
      return row !== undefined
    },

    /** The number the user's live code was sent to, read without spending an attempt. */
    async pendingTarget(userId: number): Promise<string | undefined> {
      const row = await db
        .selectFrom('one_time_codes')
        .select('target')
        .where('user_id', '=', userId)
        .where('purpose', '=', 'phone')
        .where('used_at', 'is', null)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row?.target
    },

    async setPhone(userId: number, phone: string | null): Promise<void> {
      await db
        .updateTable('users')
        .set({ phone, is_phone_verified: phone !== null, modified_at: sql`now()` })
        .where('id', '=', userId)
        .execute()
    },
  }
}
