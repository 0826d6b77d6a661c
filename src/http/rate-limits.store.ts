import type { FastifyBaseLogger } from 'fastify'
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import type { Redis, Result } from 'ioredis'

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** Counts one request in a fixed window: [requests so far, milliseconds until the window ends]. */
    civicRateLimitIncr(key: string, windowMs: number): Result<[number, number], Context>
  }
}

/**
 * One atomic step per request: increment, and start the window (its expiry) with the first request.
 * A key left without expiry (an earlier failure between the two calls) is given one, so it cannot count forever.
 */
const INCREMENT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`

/** After Redis fails, how long counting stays in memory before Redis is asked again. */
const REDIS_RETRY_MS = 5_000
/** In-memory counters kept at most; beyond it the oldest windows are dropped. */
const MEMORY_MAX_KEYS = 100_000

export interface Count {
  current: number
  ttl: number
}

/** Milliseconds since the epoch; tests move it forward instead of waiting. */
export type Clock = () => number

/** Fixed-window counters in this process's memory. */
class MemoryCounters {
  private readonly windows = new Map<string, { current: number; endsAt: number }>()
  private nextSweep = 0

  constructor(private readonly now: Clock) {}

  incr(key: string, windowMs: number): Count {
    const now = this.now()
    this.sweep(now)
    let window = this.windows.get(key)
    if (!window || window.endsAt <= now) {
      this.windows.delete(key)
      window = { current: 0, endsAt: now + windowMs }
      this.windows.set(key, window)
    }
    window.current += 1
    return { current: window.current, ttl: window.endsAt - now }
  }

  /** Drops ended windows once in a while, and the oldest ones when there are too many. */
  private sweep(now: number): void {
    if (now >= this.nextSweep) {
      this.nextSweep = now + 10_000
      for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key)
    }
    // Maps iterate in insertion order, and a new window is always inserted last.
    if (this.windows.size < MEMORY_MAX_KEYS) return
    for (const key of this.windows.keys()) {
      if (this.windows.size < MEMORY_MAX_KEYS) break
      this.windows.delete(key)
    }
  }
}

export interface CounterStoreOptions {
  /** Shared counters; null counts in this process only. */
  redis: Redis | null
  /** Prefix of every Redis key. */
  namespace: string
  log: FastifyBaseLogger
  /** The clock of the in-memory windows (Redis keeps its own); Date.now unless a test moves time itself. */
  now?: Clock
}

/**
 * The counters behind every limit: in Redis when one is configured, so all processes share them; in memory otherwise.
 * When Redis fails, counting continues in this process's memory (each process then enforces the limits on its own)
 * and Redis is tried again a few seconds later: the service neither stops answering nor drops its limits.
 */
export class CounterStore {
  private readonly memory: MemoryCounters
  private redisRetryAt = 0
  private redisFailing = false

  constructor(private readonly options: CounterStoreOptions) {
    this.memory = new MemoryCounters(options.now ?? Date.now)
    options.redis?.defineCommand('civicRateLimitIncr', { numberOfKeys: 1, lua: INCREMENT })
  }

  /** A count in memory is answered at once; only Redis's is a promise. */
  incr(key: string, windowMs: number): Count | Promise<Count> {
    const { redis } = this.options
    if (redis && Date.now() >= this.redisRetryAt) return this.incrShared(redis, key, windowMs)
    return this.memory.incr(key, windowMs)
  }

  private async incrShared(redis: Redis, key: string, windowMs: number): Promise<Count> {
    try {
      const [current, ttl] = await redis.civicRateLimitIncr(this.options.namespace + key, windowMs)
      if (this.redisFailing) {
        this.redisFailing = false
        this.options.log.info('rate limits: Redis answers again, counts are shared again')
      }
      return { current: Number(current), ttl: Number(ttl) }
    } catch (error) {
      this.redisFailed(error)
    }
    return this.memory.incr(key, windowMs)
  }

  /** Counts in memory for a while; logged once per outage, not once per request. */
  redisFailed(error: unknown): void {
    this.redisRetryAt = Date.now() + REDIS_RETRY_MS
    if (this.redisFailing) return
    this.redisFailing = true
    this.options.log.warn({ err: error }, 'rate limits: Redis unavailable, counting in this process until it answers')
  }

  /** The store as @fastify/rate-limit expects one: every limiter it creates shares these counters. */
  pluginStore(): FastifyRateLimitStoreCtor {
    // The plugin calls these as methods of its own objects: the arrow keeps this store.
    const count = (key: string, timeWindow: number) => Promise.resolve(this.incr(key, timeWindow))
    const view = (prefix: string): FastifyRateLimitStore => ({
      incr(key, callback, timeWindow) {
        count(prefix + key, timeWindow).then(
          (count) => callback(null, count),
          (error: Error) => callback(error),
        )
      },
      // A limit declared on a route counts apart from the others (under its method and URL).
      child(routeOptions) {
        const route = (routeOptions as { routeInfo?: { method?: unknown; url?: unknown } }).routeInfo
        return route?.url ? view(`${prefix}route:${String(route.method)}:${String(route.url)}:`) : view(prefix)
      },
    })
    return function SharedStore() {
      return view('')
    } as unknown as FastifyRateLimitStoreCtor
  }
}
