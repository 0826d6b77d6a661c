import { sql } from 'kysely'
import type { Db } from '../../db/types.ts'
import type { Analytics } from './vote-input.ts'
import type { EditRefusal, NamedRefusal, WithdrawalRefusal } from './vote-rules.ts'

/**
 * Every answer write as one database call (cast_likert, cast_pick, edit_answer, withdraw_answer: migration 044 and
 * src/db/functions.generated.sql), in no transaction of ours: the question's row stays locked only while the call
 * runs in the server. A first answer is 'written', one replacing the caller's answer 'replaced'; anything else wrote
 * nothing and is a refusal by name. `carried`: how many unanswered people's votes a public answer casts (a first
 * one) or stopped casting (a withdrawal), whose delegators the service then tells.
 */
export type AnswerCallOutcome = 'written' | 'replaced' | NamedRefusal

export interface AnswerCallInput extends Analytics {
  /** The question of a likert answer, the choice of a pick. */
  object: number
  user: number
  staff: boolean
  value: number | null
  /** null: the voter's default privacy. */
  private: boolean | null
  collection: number | null
  /** Likert answers only; undefined keeps a replaced answer's importance. */
  importance: number | null | undefined
}

export type AnswerCall = 'cast_likert' | 'cast_pick'

/** The answer written, or why not. */
export type AnswerCallResult<Row> =
  { outcome: 'written' | 'replaced'; vote: Row; carried: number } | { outcome: NamedRefusal; vote: null; carried: 0 }

export async function castAnswerCall<Row>(db: Db, call: AnswerCall, a: AnswerCallInput): Promise<AnswerCallResult<Row>> {
  const importance = call === 'cast_likert' ? [sql`${a.importance ?? null}::smallint`, sql`${a.importance === undefined}::boolean`] : []
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
  const { rows } = await sql<Row & { outcome: AnswerCallOutcome; carried: number }>`
    SELECT r.outcome, r.carried, (r.vote).* FROM ${sql.raw(call)}(${sql.join(args)}) AS r`.execute(db)
  const { outcome, carried, ...vote } = rows[0]
  return outcome === 'written' || outcome === 'replaced' ? { outcome, vote: vote as Row, carried } : { outcome, vote: null, carried: 0 }
}

/** How a withdrawal ended; only 'withdrawn' wrote anything. */
export type WithdrawalOutcome = 'withdrawn' | WithdrawalRefusal

export async function withdrawAnswerCall(
  db: Db,
  pick: boolean,
  voteId: number,
): Promise<{ outcome: WithdrawalOutcome; question: number; voter: number; carried: number }> {
  const { rows } = await sql<{ outcome: WithdrawalOutcome; question: number; voter: number; carried: number }>`
    SELECT * FROM withdraw_answer(${pick}, ${voteId}::integer)`.execute(db)
  return rows[0]
}

/** How an edit ended; only 'edited' wrote anything. */
export type EditOutcome = 'edited' | EditRefusal

/** What a PATCH names: each field undefined when the body leaves it as it is. */
export interface EditCallInput {
  /** The new value, null for a skip (answerOf's reading of value and skipped). */
  value: number | null | undefined
  /** The body said skipped: false. */
  unskip: boolean
  importance: number | null | undefined
  private: boolean | undefined
  collection: number | null | undefined
}

export async function editAnswerCall<Row>(
  db: Db,
  pick: boolean,
  voteId: number,
  e: EditCallInput,
): Promise<{ outcome: EditOutcome; vote: Row | null }> {
  const { rows } = await sql<Row & { outcome: EditOutcome }>`
    SELECT r.outcome, (${sql.raw(pick ? 'r.pick' : 'r.likert')}).* FROM edit_answer(${pick}, ${voteId}::integer,
      ${e.value !== undefined}, ${e.value ?? null}::smallint, ${e.unskip},
      ${e.importance !== undefined}, ${e.importance ?? null}::smallint, ${e.private ?? null}::boolean,
      ${e.collection !== undefined}, ${e.collection ?? null}::integer) AS r`.execute(db)
  const { outcome, ...vote } = rows[0]
  return { outcome, vote: outcome === 'edited' ? (vote as Row) : null }
}
