import { sql } from 'kysely'
import { NOTICES_AFTER_COMMIT } from '../../db/notices-after-commit.ts'
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

    /** The clock, as `now`, in an answer's transaction, whose notices are then left to its process (after commit). */
    async nowLeavingNotices(): Promise<Date> {
      const { rows } = await sql<{ now: Date }>`SELECT clock_timestamp() AS now, ${NOTICES_AFTER_COMMIT} AS notices`.execute(db)
      return new Date(rows[0].now)
    },

    /**
     * What a new answer reads once its locks are held, in one statement: the clock, the voter's default
     * privacy, their liquid block on the question (read before the answer changes), their current answer
     * (locked) and whether the collection named exists. The transaction's notices are left to its process.
     */
    async forAnswer<Row>(
      userId: number,
      questionId: number,
      answers: 'question_votes' | 'question_choice_votes',
      collection: number | null,
    ): Promise<{ now: Date; defaultPrivate: boolean; block: Block; current: Row | undefined; collectionExists: boolean }> {
      const extra = sql`clock_timestamp() AS now, (SELECT default_private FROM users WHERE id = ${userId}) AS default_private,
        ${NOTICES_AFTER_COMMIT} AS notices,
        (SELECT to_jsonb(v) FROM ${sql.table(answers)} v WHERE v.user_id = ${userId} AND v.question_id = ${questionId} FOR UPDATE) AS current,
        EXISTS (SELECT FROM question_collections WHERE id = ${collection}::integer) AS collection_exists`
      type Extra = { now: Date; default_private: boolean | null; current: Record<string, unknown> | null; collection_exists: boolean }
      const { extra: row, ...block } = await liquidRepository(db).block<Extra>(questionId, userId, extra)
      return {
        now: new Date(row.now),
        defaultPrivate: row.default_private ?? false,
        block,
        current: row.current ? (rowOfJson(row.current) as Row) : undefined,
        collectionExists: row.collection_exists,
      }
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

/** A row read as JSON, with its times (`…_at`) as dates again, as the driver reads them from a row. */
function rowOfJson(json: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(json).map(([key, value]) => [key, key.endsWith('_at') && typeof value === 'string' ? new Date(value) : value]),
  )
}
