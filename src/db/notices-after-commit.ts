import { sql, type Kysely } from 'kysely'
import type { Database } from './database.ts'
import { DATA_CHANGED_CHANNEL } from './data-changes.ts'
import { queryCounter } from './query-counter.ts'

/**
 * Change notices sent by the writing process after its transaction committed, instead of by triggers inside it
 * (migration 023: a NOTIFY in a transaction holds PostgreSQL's notify lock through the commit, so committing
 * writers queue behind one another). A transaction that sets `civic.notices_after_commit` locally (an answer's does,
 * in lock_answerable_question and lock_held_answer) sends none from its triggers, and once it has committed its process
 * sends what they would have sent. The notices of writers that commit while a
 * send is under way go together in the next one: one notify transaction per round trip, whatever the write rate.
 * A process that dies between its commit and its send loses those notices; kept answers are rebuilt within
 * RESPONSE_CACHE_MAX_AGE_MS anyway (docs/operations.md).
 */

export interface Notice {
  channel: string
  payload: string
}

/** What any change of served data announces (the response caches listen to it). */
export const DATA_CHANGED: Notice = { channel: DATA_CHANGED_CHANNEL, payload: '' }

export class NoticeSender {
  /** channel → payloads waiting for the next send */
  #pending = new Map<string, Set<string>>()
  #sending: Promise<void> | null = null

  /** Told of a send that failed (the app logs it). */
  onError: (error: Error) => void = () => {}

  constructor(private readonly db: Kysely<Database>) {}

  /** Sends the notices (after the writer's commit): now when nothing is being sent, else with the next send. */
  send(notices: readonly Notice[]): void {
    for (const { channel, payload } of notices) {
      const payloads = this.#pending.get(channel) ?? this.#pending.set(channel, new Set()).get(channel)!
      payloads.add(payload)
    }
    // Outside the request that asked: the send is nobody's statement (x-query-count).
    this.#sending ??= queryCounter.exit(() => this.#drain())
  }

  /** Resolves once everything passed to send so far has been sent (or failed). */
  async settled(): Promise<void> {
    while (this.#sending) await this.#sending
  }

  async #drain(): Promise<void> {
    try {
      while (this.#pending.size > 0) {
        const batch = [...this.#pending].flatMap(([channel, payloads]) => [...payloads].map((payload) => ({ channel, payload })))
        this.#pending = new Map()
        await sql`SELECT count(pg_notify(n.channel, n.payload)) FROM unnest(${batch.map((n) => n.channel)}::text[],
          ${batch.map((n) => n.payload)}::text[]) AS n(channel, payload)`
          .execute(this.db)
          .catch((error: Error) => this.onError(error))
      }
    } finally {
      this.#sending = null
    }
  }
}

const senders = new WeakMap<Kysely<Database>, NoticeSender>()

/** The database's sender of notices after commit (one per database handle, made on first use). */
export function noticesAfterCommit(db: Kysely<Database>): NoticeSender {
  // Inside a transaction nothing has committed yet: the caller's transaction must end first.
  if (db.isTransaction) throw new Error('notices after commit are sent through the database, not a transaction')
  let sender = senders.get(db)
  if (!sender) senders.set(db, (sender = new NoticeSender(db)))
  return sender
}
