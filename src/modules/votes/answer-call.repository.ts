import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { countQuery, queryCounter } from '../../db/query-counter.ts'
import { readRouting, wroteOnPrimary } from '../../db/read-routing.ts'
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

type CastRow = { outcome: AnswerCallOutcome; carried: number } & Record<string, unknown>

/**
 * Casts an answer. Answers that arrive while another group of the same call is in the database wait for it and go
 * together in the next, as one statement: one transaction and one commit for all of them (cast_likert_group,
 * cast_pick_group, migrations 057 and 058: the casts one after another in question order, then person order, and
 * what they moved written at the end, counts and tags summed, counters in person order, so groups in any processes
 * take their locks in one order). Each still gets its own outcome, refusals included; should the group fail as a
 * whole (a unique race, a deadlock with a writer of another order), each answer is cast again alone and fails or not
 * on its own. In a transaction of the caller's, the call runs there, alone.
 */
export async function castAnswerCall<Row>(db: Db, call: AnswerCall, a: AnswerCallInput): Promise<AnswerCallResult<Row>> {
  const row = db.isTransaction ? (await castMany(db, call, [a]))[0]! : await groupsOf(db as Kysely<Database>, call).cast(a)
  if (!db.isTransaction) {
    // The statement ran outside this request's context (it may carry others' answers): it is this request's write.
    countQuery()
    wroteOnPrimary()
  }
  const { outcome, carried, ...vote } = row
  return outcome === 'written' || outcome === 'replaced' ? { outcome, vote: vote as Row, carried } : { outcome, vote: null, carried: 0 }
}

const analyticsOf = (a: AnswerCallInput) => [
  a.analytics_interface,
  a.analytics_os,
  a.analytics_browser,
  a.analytics_parent_url,
  a.analytics_location,
]

/** The answers in one statement (one or many), cast in one transaction; the rows in the answers' order. */
async function castMany(db: Db, call: AnswerCall, answers: AnswerCallInput[]): Promise<CastRow[]> {
  const column = <T>(pick: (a: AnswerCallInput) => T, type: string) => sql`${answers.map(pick)}::${sql.raw(type)}[]`
  const analytics = [0, 1, 2, 3, 4].map((i) => column((a) => analyticsOf(a)[i] ?? null, 'text'))
  // A pick has no importance to set or keep.
  const importance =
    call === 'cast_likert' ? [column((a) => a.importance ?? null, 'smallint'), column((a) => a.importance === undefined, 'boolean')] : []
  const { rows } = await sql<CastRow & { n: number }>`
    SELECT r.n, r.outcome, r.carried, (r.vote).*
    FROM ${sql.raw(`${call}_group`)}(${column((a) => a.object, 'integer')}, ${column((a) => a.user, 'integer')},
      ${column((a) => a.staff, 'boolean')}, ${column((a) => a.value, 'smallint')}, ${column((a) => a.private, 'boolean')},
      ${column((a) => a.collection, 'integer')}, ${sql.join([...importance, ...analytics])}) AS r
    ORDER BY r.n`.execute(db)
  return rows.map(({ n: _n, ...row }) => row as CastRow)
}

/** At most this many answers go in one statement. */
const GROUP_MOST = 64

interface Waiting {
  answer: AnswerCallInput
  resolve: (row: CastRow) => void
  reject: (error: unknown) => void
}

/** One call's answers waiting for the group in the database to commit, in one process, for one database. */
class AnswerGroups {
  #waiting: Waiting[] = []
  #running = false

  constructor(
    private readonly db: Kysely<Database>,
    private readonly call: AnswerCall,
  ) {}

  cast(answer: AnswerCallInput): Promise<CastRow> {
    return new Promise<CastRow>((resolve, reject) => {
      this.#waiting.push({ answer, resolve, reject })
      // Outside every request's context: the statement may carry other requests' answers (each counts its own).
      if (!this.#running) queryCounter.exit(() => readRouting.exit(() => void this.#run()))
    })
  }

  async #run(): Promise<void> {
    this.#running = true
    let settle = () => {}
    try {
      while (this.#waiting.length > 0) {
        const group = this.#waiting.splice(0, GROUP_MOST)
        const cast = this.#castGroup(group)
        // The group before hears back once this one is on its way: the database casts it while their replies are made.
        setImmediate(settle)
        settle = await cast
      }
    } finally {
      this.#running = false
      settle()
    }
  }

  /** Casts a group; resolves to what tells each of its answers the outcome (a group cast one by one has told them). */
  async #castGroup(group: Waiting[]): Promise<() => void> {
    try {
      const rows = await castMany(
        this.db,
        this.call,
        group.map((w) => w.answer),
      )
      return () => group.forEach((w, i) => w.resolve(rows[i]!))
    } catch (error) {
      if (group.length === 1) return () => group[0]!.reject(error)
      // Cast again one by one below: each answer meets its own refusal or race.
    }
    await Promise.all(group.map((w) => castMany(this.db, this.call, [w.answer]).then(([row]) => w.resolve(row!), w.reject)))
    return () => {}
  }
}

const groups = new WeakMap<Kysely<Database>, Map<AnswerCall, AnswerGroups>>()

function groupsOf(db: Kysely<Database>, call: AnswerCall): AnswerGroups {
  let byCall = groups.get(db)
  if (!byCall) groups.set(db, (byCall = new Map()))
  let found = byCall.get(call)
  if (!found) byCall.set(call, (found = new AnswerGroups(db, call)))
  return found
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
