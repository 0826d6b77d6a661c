import type pg from 'pg'
import { isConnectionBroken, isDatabaseUnavailable } from './availability.ts'

/** `16/B374D848` as a number, so positions compare. */
export function parseLsn(text: string | null | undefined): bigint | null {
  const match = /^([0-9A-F]+)\/([0-9A-F]+)$/i.exec(text ?? '')
  return match ? (BigInt(`0x${match[1]}`) << 32n) + BigInt(`0x${match[2]}`) : null
}

export type ReplicaHealth = 'ok' | 'lagging' | 'down'

/** What /readyz shows of a replica: where it is (no credentials), whether reads go to it, how far behind it is. */
export interface ReplicaStatus {
  url: string
  state: ReplicaHealth
  lag_ms: number | null
}

export interface ReplicaSetOptions {
  /** A replica that has not caught up with the primary for longer than this is skipped. */
  maxLagMs: number
  /** How often the primary's position and every replica's replay position are read (shared by all requests). */
  pollMs?: number
}

const DEFAULT_POLL_MS = 50
/** Probes of one replica made for waiting readers are at least this far apart. */
const PROBE_SPACING_MS = 5

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)))

/** Host and port of a URL, never its credentials. */
export function replicaLabel(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname || parsed.searchParams.get('host') || 'localhost'}:${parsed.port || '5432'}`
  } catch {
    return '(an unparsable URL)'
  }
}

export class Replica {
  /** The newest replay position seen (it only moves forward). */
  replay: bigint | null = null
  /** performance.now() of the newest primary sample this replica had replayed; -Infinity while never. */
  caughtUpAt = -Infinity
  /** Down from the start until a poll answers, and again whenever a statement or poll finds it unreachable. */
  down = true
  #probe: Promise<void> | null = null
  #probedAt = -Infinity
  polling = false

  constructor(
    readonly label: string,
    readonly pool: pg.Pool,
  ) {}

  /** `sampledAt`: when the primary's newest known position was read; the lag is counted up to then. */
  state(sampledAt: number, maxLagMs: number): ReplicaHealth {
    if (this.down) return 'down'
    return this.lag(sampledAt) > maxLagMs ? 'lagging' : 'ok'
  }

  lag(sampledAt: number): number {
    return this.caughtUpAt === -Infinity ? Infinity : Math.max(0, sampledAt - this.caughtUpAt)
  }

  /** A statement on one of the replica's connections; a connection that broke is closed, not lent again. */
  async query(text: string, parameters: ReadonlyArray<unknown>): Promise<pg.QueryResult> {
    const client = await this.pool.connect()
    let broken: Error | undefined
    try {
      return await client.query(text, [...parameters])
    } catch (error) {
      if (isConnectionBroken(error)) broken = error as Error
      throw error
    } finally {
      client.release(broken)
    }
  }

  /** One read of the replay position, shared by everyone waiting meanwhile. */
  probe(read: () => Promise<void>): Promise<void> {
    this.#probe ??= (async () => {
      try {
        await sleep(this.#probedAt + PROBE_SPACING_MS - performance.now())
        this.#probedAt = performance.now()
        await read()
      } finally {
        this.#probe = null
      }
    })()
    return this.#probe
  }
}

/**
 * The replicas and how far each has replayed. Every `pollMs` one statement on the primary samples its WAL position
 * and one per replica reads its replay position; a replica's lag is the time from the newest position it has
 * replayed to the newest the primary is known to have reached (so an idle primary does not make an idle replica look
 * late, and a stalled replay shows within a poll). A reader that needs a newer position than the kept one probes the
 * replica directly.
 */
export class ReplicaSet {
  readonly replicas: Replica[]
  readonly maxLagMs: number
  /** The primary's positions over the last REPLICA_MAX_LAG_MS and a little more, oldest first. */
  #samples: { at: number; lsn: bigint }[] = []
  #sampling = false
  #timer: NodeJS.Timeout
  #next = 0

  constructor(
    replicas: { url: string; pool: pg.Pool }[],
    private readonly samplePrimary: () => Promise<bigint | null>,
    options: ReplicaSetOptions,
  ) {
    this.replicas = replicas.map(({ url, pool }) => new Replica(replicaLabel(url), pool))
    this.maxLagMs = options.maxLagMs
    this.#timer = setInterval(() => this.#tick(), options.pollMs ?? DEFAULT_POLL_MS)
    this.#timer.unref()
    this.#tick()
  }

  /** Whether any replica may take reads now (no lookup of the caller's position is worth making otherwise). */
  anyUsable(): boolean {
    const sampledAt = this.#sampledAt()
    return this.replicas.some((replica) => replica.state(sampledAt, this.maxLagMs) === 'ok')
  }

  status(): ReplicaStatus[] {
    const sampledAt = this.#sampledAt()
    return this.replicas.map((replica) => ({
      url: replica.label,
      state: replica.state(sampledAt, this.maxLagMs),
      lag_ms: replica.down || replica.caughtUpAt === -Infinity ? null : Math.round(replica.lag(sampledAt)),
    }))
  }

  /**
   * A replica in use that has replayed `floor` (round robin), waiting up to `waitMs` for one to get there; null:
   * read the primary.
   */
  async choose(floor: bigint | null, waitMs: number): Promise<Replica | null> {
    const deadline = performance.now() + waitMs
    for (;;) {
      const now = performance.now()
      const sampledAt = this.#sampledAt()
      const usable = this.replicas.filter((replica) => replica.state(sampledAt, this.maxLagMs) === 'ok')
      if (usable.length === 0) return null
      const ready = floor === null ? usable : usable.filter((replica) => replica.replay !== null && replica.replay >= floor)
      if (ready.length > 0) return ready[this.#next++ % ready.length]!
      if (now >= deadline) return null
      await Promise.race([Promise.any(usable.map((replica) => this.#probe(replica))), sleep(deadline - now)])
    }
  }

  /** Resolves once every replica in use has replayed `lsn` (or is skipped as down or lagging), or after `limitMs`. */
  async replayedPast(lsn: bigint, limitMs: number): Promise<void> {
    const deadline = performance.now() + limitMs
    for (;;) {
      const now = performance.now()
      const sampledAt = this.#sampledAt()
      const behind = this.replicas.filter(
        (replica) => replica.state(sampledAt, this.maxLagMs) === 'ok' && (replica.replay === null || replica.replay < lsn),
      )
      if (behind.length === 0 || now >= deadline) return
      await Promise.race([Promise.all(behind.map((replica) => this.#probe(replica))), sleep(deadline - now)])
    }
  }

  /** A statement failed on the replica because it is unreachable: skipped until a poll answers again. */
  failed(replica: Replica, error: unknown): void {
    if (isDatabaseUnavailable(error) && (error as { code?: unknown }).code !== '57014') replica.down = true
  }

  close(): Promise<void> {
    clearInterval(this.#timer)
    return Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => {}))).then(() => {})
  }

  #tick(): void {
    if (!this.#sampling) {
      this.#sampling = true
      this.samplePrimary()
        .then((lsn) => lsn !== null && this.#sampled(lsn))
        .catch(() => {})
        .finally(() => (this.#sampling = false))
    }
    for (const replica of this.replicas) {
      if (replica.polling) continue
      replica.polling = true
      void this.#read(replica).finally(() => (replica.polling = false))
    }
  }

  /**
   * When the primary's newest known position was read. Lag is counted up to then, not up to now: a primary too busy
   * to answer the sample at once (its pool taken by requests) does not make every replica look late and send their
   * reads to it as well.
   */
  #sampledAt(): number {
    return this.#samples.at(-1)?.at ?? -Infinity
  }

  #sampled(lsn: bigint): void {
    const now = performance.now()
    this.#samples.push({ at: now, lsn })
    const keepFrom = now - this.maxLagMs - 1_000
    while (this.#samples.length > 1 && this.#samples[0]!.at < keepFrom) this.#samples.shift()
  }

  #probe(replica: Replica): Promise<void> {
    return replica.probe(() => this.#read(replica))
  }

  /** Reads the replica's replay position; a failure marks it down. */
  async #read(replica: Replica): Promise<void> {
    try {
      const { rows } = await replica.pool.query<{ lsn: string | null }>('select pg_last_wal_replay_lsn()::text as lsn')
      const replay = parseLsn(rows[0]?.lsn)
      // A server not in recovery (a promoted replica, a primary named by mistake) is no replica of this primary.
      if (replay === null) return void (replica.down = true)
      if (replica.replay === null || replay > replica.replay) replica.replay = replay
      for (let i = this.#samples.length - 1; i >= 0; i--) {
        const sample = this.#samples[i]!
        if (sample.lsn <= replica.replay) {
          if (sample.at > replica.caughtUpAt) replica.caughtUpAt = sample.at
          break
        }
      }
      replica.down = false
    } catch {
      replica.down = true
    }
  }
}
