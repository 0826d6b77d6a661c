import pg from 'pg'
import type { PGlite } from '@electric-sql/pglite'

/** The channel every committed change of served data is announced on (migration 011's triggers). */
export const DATA_CHANGED_CHANNEL = 'data_changed'

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

/**
 * Listens on its own connection to the PostgreSQL server, reconnecting with backoff when it breaks. Resolves once
 * the first attempt is over, listening or not.
 */
export async function listenOnServer(
  connectionString: string,
  listener: DataChangeListener,
  onError: (error: Error) => void = () => {},
  channels: readonly string[] = [DATA_CHANGED_CHANNEL],
): Promise<DataChanges> {
  let client: pg.Client | null = null
  let closed = false
  let listening = false
  let retry: NodeJS.Timeout | null = null
  let attempt = 0

  const lost = () => {
    if (listening) listener.onLost()
    listening = false
  }
  const connect = async () => {
    retry = null
    const next = new pg.Client({ connectionString, keepAlive: true, connectionTimeoutMillis: 5_000 })
    client = next
    next.on('notification', (message) => listener.onChange(message.channel, message.payload))
    next.on('error', (error) => {
      onError(error)
      lost()
    })
    next.on('end', () => {
      lost()
      if (!closed && client === next) schedule()
    })
    try {
      await next.connect()
      for (const channel of channels) await next.query(`LISTEN ${channel}`)
      if (closed) return void (await next.end().catch(() => {}))
      attempt = 0
      listening = true
      // Whatever changed while nobody listened is unknown: everything kept is stale.
      listener.onChange()
    } catch (error) {
      onError(error as Error)
      lost()
      await next.end().catch(() => {})
      if (client === next) schedule()
    }
  }
  const schedule = () => {
    if (closed || retry) return
    const wait = Math.min(FIRST_RETRY_MS * 2 ** attempt++, LONGEST_RETRY_MS)
    retry = setTimeout(() => void connect(), wait)
    retry.unref()
  }
  await connect()
  return {
    get listening() {
      return listening
    },
    async close() {
      closed = true
      listening = false
      if (retry) clearTimeout(retry)
      await client?.end().catch(() => {})
    },
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
