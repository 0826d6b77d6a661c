import { sql } from 'kysely'
import { liquidRepository, type Block } from '../../engines/liquid/liquid.repository.ts'
import type { Db } from '../../db/types.ts'

/** What every kind of vote reads besides its own table: the clock, the voter's default, collections. */
export function voteContextRepository(db: Db) {
  return {
    /** The database clock, read after the locks are held, so that answer times grow in lock order. */
    async now(): Promise<Date> {
      const { rows } = await sql<{ now: Date }>`SELECT clock_timestamp() AS now`.execute(db)
      return new Date(rows[0].now)
    },

    /**
     * What a new answer reads once its locks are held, in one statement: the clock, the voter's default
     * privacy and their liquid block on the question (read before the answer changes).
     */
    async forAnswer(userId: number, questionId: number): Promise<{ now: Date; defaultPrivate: boolean; block: Block }> {
      const extra = sql`clock_timestamp() AS now, (SELECT default_private FROM users WHERE id = ${userId}) AS default_private`
      const { extra: row, ...block } = await liquidRepository(db).block<{ now: Date; default_private: boolean | null }>(
        questionId,
        userId,
        extra,
      )
      return { now: new Date(row.now), defaultPrivate: row.default_private ?? false, block }
    },

    async defaultPrivate(userId: number): Promise<boolean> {
      const row = await db.selectFrom('users').select('default_private').where('id', '=', userId).executeTakeFirst()
      return row?.default_private ?? false
    },

    async collectionExists(id: number): Promise<boolean> {
      return (await db.selectFrom('question_collections').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
    },
  }
}
