import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'

/** What a tag vote reads besides its own table: the clock and the voter's default privacy. */
export function voteContextRepository(db: Db) {
  return {
    /** The database clock, read after the locks are held, so that answer times grow in lock order. */
    async now(): Promise<Date> {
      const { rows } = await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(db)
      return new Date(rows[0].now)
    },

    async defaultPrivate(userId: number): Promise<boolean> {
      const row = await db.selectFrom('users').select('default_private').where('id', '=', userId).executeTakeFirst()
      return row?.default_private ?? false
    },
  }
}
