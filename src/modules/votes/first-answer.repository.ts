import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'
import type { Analytics } from './vote-input.ts'
import type { NamedRefusal } from './vote-rules.ts'

/**
 * A first answer as one database call (migrations 029 and 030), in no transaction of ours: the question's row stays
 * locked only while the call runs in the server. It writes nothing unless the outcome is 'written'; 'general' leaves
 * the answer to the general path (a replacement, or delegators to tell).
 */
export type FirstAnswerOutcome = 'written' | 'general' | NamedRefusal

export interface FirstAnswerInput extends Analytics {
  /** The question of a likert answer, the choice of a pick. */
  object: number
  user: number
  staff: boolean
  value: number | null
  /** null: the voter's default privacy. */
  private: boolean | null
  collection: number | null
  /** Likert answers only. */
  importance: number | null
}

export type FirstAnswerCall = 'cast_first_likert' | 'cast_first_pick'

/** The answer written, or why not. */
export type FirstAnswer<Row> = { outcome: 'written'; vote: Row } | { outcome: Exclude<FirstAnswerOutcome, 'written'>; vote: null }

export async function castFirstAnswer<Row>(db: Db, call: FirstAnswerCall, a: FirstAnswerInput): Promise<FirstAnswer<Row>> {
  const importance = call === 'cast_first_likert' ? [sql`${a.importance}::smallint`] : []
  const args = [
    sql`${a.object}::integer`,
    sql`${a.user}::integer`,
    sql`${a.staff}::boolean`,
    sql`${a.value}::smallint`,
    sql`${a.private}::boolean`,
    sql`${a.collection}::integer`,
    ...importance,
    ...[a.analytics_interface, a.analytics_os, a.analytics_browser, a.analytics_parent_url, a.analytics_location].map(
      (v) => sql`${v}::text`,
    ),
  ]
  const { rows } = await sql<Row & { outcome: FirstAnswerOutcome }>`
    SELECT r.outcome, (r.vote).* FROM ${sql.raw(call)}(${sql.join(args)}) AS r`.execute(db)
  const { outcome, ...vote } = rows[0]
  return outcome === 'written' ? { outcome, vote: vote as Row } : { outcome, vote: null }
}
