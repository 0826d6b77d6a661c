import pg from 'pg'
import type { PGlite } from '@electric-sql/pglite'

/** The channel every committed change of served data is announced on (migration 011's triggers). */
export const DATA_CHANGED_CHANNEL = 'data_changed'
/** A question's figures changed (migration 015's triggers): the question's id as payload. */
export const QUESTION_FIGURES_CHANNEL = 'question_figures'
/** A collection's questions changed (migration 015's triggers): the collection's id as payload. */
export const COLLECTION_ITEMS_CHANNEL = 'collection_items'
/**
 * A collection's opinion groups changed (sent by the process that recomputed them): JSON with the collection's id
 * and the groups as published, which the collection's live streams pass on.
 */
export const OPINION_GROUPS_CHANNEL = 'opinion_groups'
/**
 * People's own fields changed (their answers, follow links or drafts; migration 037's triggers, and the process of a
 * signed-in person's write): their ids, comma-separated, or empty for anyone.
 */
export const OWN_CHANGED_CHANNEL = 'own_changed'
/** The question set's version moved (migration 037's bump of migration 026's number). */
export const QUESTION_SET_CHANNEL = 'question_set'
/** Notifications were written (migration 012's trigger). */
export const NOTIFICATIONS_CREATED_CHANNEL = 'notifications_created'

/** The statement a migration runs for a table it creates, so its changes are announced too. */
export function noticeTriggerSql(table: string): string {
  return `CREATE TRIGGER ${table}_notice AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION notify_data_changed()`
}

export interface DataChangeListener {
  /**
   * Called on every notice, with its channel and payload, and once more after the listener was lost and is back
   * (notices may have been missed; channel and payload are then absent).
   */
  onChange(channel?: string, payload?: string): void
  /** The listener is gone (connection lost): until onChange comes again, notices may be missed. */
  onLost(): void
}

export interface DataChanges {
  /** Whether notices are arriving: false while the listening connection is down. */
  readonly listening: boolean
  close(): Promise<void>
}

const FIRST_RETRY_MS = 250
const LONGEST_RETRY_MS = 5_000

interface Subscription {
  listener: DataChangeListener
  channels: ReadonlySet<string>
}

/**
 * Every listener of a process shares one connection to the PostgreSQL server, opened with the first and closed with
 * the last, reconnecting with backoff when it breaks.
 */
export class ServerNotices {
  #client: pg.Client | null = null
  #connecting: Promise<void> | null = null
  #retry: NodeJS.Timeout | null = null
  #attempt = 0
  #listening = false
  /** The channels LISTENed on the current connection. */
  #channels = new Set<string>()
  readonly #subscriptions = new Set<Subscription>()

  constructor(
    private readonly connectionString: string,
    private readonly onError: (error: Error) => void = () => {},
    /**
     * With read replicas: told the primary's WAL position read just after a notice (on this connection, so it is the
     * primary's), and resolved when the notice may be passed on; listeners then rebuild from replicas that have it.
     */
    private readonly gate?: (position: string) => Promise<void>,
  ) {}

  /** Resolves once the listener is listening, or once the attempt to connect is over (it goes on in the background). */
  async listen(listener: DataChangeListener, channels: readonly string[] = [DATA_CHANGED_CHANNEL]): Promise<DataChanges> {
    const subscription: Subscription = { listener, channels: new Set(channels) }
    this.#subscriptions.add(subscription)
    if (!this.#client) await this.#connect()
    else if (this.#connecting) {
      await this.#connecting
      // It may have come after the connection chose its channels.
      if (this.#client && this.#listening) await this.#listenOn(this.#client, subscription.channels).catch((error) => this.onError(error))
    } else if (this.#listening) {
      // The connection was made before this listener came: it listens on its channels from now on.
      await this.#listenOn(this.#client, subscription.channels).catch((error) => this.onError(error))
      if (this.#listening) {
        if (this.gate) this.#pass(this.#client, [subscription])
        else listener.onChange()
      }
    }
    const listening = () => this.#subscriptions.has(subscription) && this.#listening
    return {
      get listening() {
        return listening()
      },
      close: async () => {
        if (!this.#subscriptions.delete(subscription)) return
        if (this.#subscriptions.size === 0) await this.#end()
      },
    }
  }

  #connect(): Promise<void> {
    this.#retry = null
    const next = new pg.Client({
      connectionString: this.connectionString,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      // The gate's position query must not hang the notices on a connection that stopped answering.
      ...(this.gate ? { query_timeout: 5_000 } : {}),
    })
    this.#client = next
    this.#channels = new Set()
    next.on('notification', (message) => {
      if (this.gate) return this.#pass(next, null, message.channel, message.payload)
      for (const { listener, channels } of this.#subscriptions)
        if (channels.has(message.channel)) listener.onChange(message.channel, message.payload)
    })
    next.on('error', (error) => {
      this.onError(error)
      this.#lost()
    })
    next.on('end', () => {
      this.#lost()
      if (this.#client === next) this.#schedule()
    })
    const connecting = (async () => {
      try {
        await next.connect()
        await this.#listenOn(next, new Set([...this.#subscriptions].flatMap(({ channels }) => [...channels])))
        if (this.#client !== next) return void (await next.end().catch(() => {}))
        this.#attempt = 0
        this.#listening = true
        // Whatever changed while nobody listened is unknown: everything kept is stale.
        if (this.gate) this.#pass(next, null)
        else for (const { listener } of this.#subscriptions) listener.onChange()
      } catch (error) {
        this.onError(error as Error)
        this.#lost()
        await next.end().catch(() => {})
        if (this.#client === next) this.#schedule()
      }
    })()
    this.#connecting = connecting
    void connecting.then(() => {
      if (this.#connecting === connecting) this.#connecting = null
    })
    return connecting
  }

  /** Notices waiting for the gate, in the order they came. */
  #held: { client: pg.Client; to: Subscription[] | null; channel?: string; payload?: string }[] = []
  #gating = false

  /** Passes a notice on through the gate: to `to`, or to every subscription of its channel (all without one). */
  #pass(client: pg.Client, to: Subscription[] | null, channel?: string, payload?: string): void {
    this.#held.push({ client, to, channel, payload })
    if (!this.#gating) void this.#openGate()
  }

  async #openGate(): Promise<void> {
    this.#gating = true
    try {
      while (this.#held.length > 0) {
        const batch = this.#held
        this.#held = []
        const client = batch.at(-1)!.client
        // Notices of a connection since lost are dropped: the next connection announces that anything may have changed.
        if (client !== this.#client || !this.#listening) continue
        try {
          const { rows } = await client.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn')
          await this.gate!(rows[0]!.lsn)
        } catch (error) {
          this.onError(error as Error)
          continue
        }
        if (client !== this.#client || !this.#listening) continue
        for (const notice of batch) {
          if (notice.client !== client) continue
          for (const subscription of notice.to ?? this.#subscriptions) {
            if (!this.#subscriptions.has(subscription)) continue
            if (notice.channel === undefined) subscription.listener.onChange()
            else if (subscription.channels.has(notice.channel)) subscription.listener.onChange(notice.channel, notice.payload)
          }
        }
      }
    } finally {
      this.#gating = false
    }
  }

  async #listenOn(client: pg.Client, channels: ReadonlySet<string>): Promise<void> {
    for (const channel of channels) {
      if (this.#channels.has(channel)) continue
      this.#channels.add(channel)
      await client.query(`LISTEN ${channel}`)
    }
  }

  #lost(): void {
    if (this.#listening) for (const { listener } of this.#subscriptions) listener.onLost()
    this.#listening = false
  }

  #schedule(): void {
    if (this.#retry || this.#subscriptions.size === 0) return
    const wait = Math.min(FIRST_RETRY_MS * 2 ** this.#attempt++, LONGEST_RETRY_MS)
    this.#retry = setTimeout(() => void this.#connect(), wait)
    this.#retry.unref()
  }

  async #end(): Promise<void> {
    const client = this.#client
    this.#client = null
    this.#connecting = null
    this.#listening = false
    if (this.#retry) clearTimeout(this.#retry)
    this.#retry = null
    await client?.end().catch(() => {})
  }
}

/** The embedded database announces its own changes in-process. */
export async function listenOnPglite(
  pglite: PGlite,
  listener: DataChangeListener,
  channels: readonly string[] = [DATA_CHANGED_CHANNEL],
): Promise<DataChanges> {
  const unlistens = await Promise.all(channels.map((channel) => pglite.listen(channel, (payload) => listener.onChange(channel, payload))))
  const unlisten = () => Promise.all(unlistens.map((stop) => stop()))
  let listening = true
  return {
    get listening() {
      return listening
    },
    async close() {
      listening = false
      await unlisten().catch(() => {})
    },
  }
}
