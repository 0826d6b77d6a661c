import { sql, type Kysely, type Selectable } from 'kysely'
import type { AnalyticsEvents, Database } from '../../db/database.ts'
import type { DailyCount, EventKind, EventPayload } from './analytics.schemas.ts'

export type AnalyticsEventRow = Selectable<AnalyticsEvents>

/** The day (UTC) of an event, as the daily counts name it. */
const day = sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`

export function analyticsRepository(db: Kysely<Database>) {
  return {
    async insert(kind: EventKind, userId: number | null, payload: EventPayload): Promise<AnalyticsEventRow> {
      return db
        .insertInto('analytics_events')
        .values({ kind, user_id: userId, payload: JSON.stringify(payload) })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    /** Events of a kind per day, oldest first; days without any are left out. One range scan of (kind, created_at). */
    async dailyCounts(kind: EventKind, start: Date | null, end: Date | null): Promise<DailyCount[]> {
      let query = db.selectFrom('analytics_events').where('kind', '=', kind)
      if (start) query = query.where('created_at', '>=', start)
      if (end) query = query.where('created_at', '<', end)
      const rows = await query
        .select([day.as('date'), (eb) => eb.fn.countAll<string | number>().as('count')])
        .groupBy(day)
        .orderBy(day)
        .execute()
      return rows.map((row) => ({ date: row.date, count: Number(row.count) }))
    },
  }
}
