import { failFastRedis } from './redis.ts'

/**
 * The primary's WAL position after each caller's latest write (read-your-writes): in Redis when REDIS_URL is set,
 * so every process knows it, else in this process's memory. Positions expire after `ttlMs`: by then every replica
 * still in use has caught up with them anyway (a replica more than REPLICA_MAX_LAG_MS behind is skipped).
 */
export interface WritePositions {
  /** Keeps `lsn` for each key unless a newer position is kept already. */
  record(keys: readonly string[], lsn: bigint): Promise<void>
  /** The newest position kept for any of the keys; null when none. Throws when it cannot be known (Redis away). */
  newest(keys: readonly string[]): Promise<bigint | null>
  close(): Promise<void>
}

/** 16 hex digits: compares as text in the order of the positions (Redis' Lua keeps a number in a double). */
const asText = (lsn: bigint) => lsn.toString(16).padStart(16, '0')

/** Most entries kept in memory; past it the oldest go first (they expire in that order too). */
const MEMORY_ENTRIES = 100_000

export function memoryWritePositions(ttlMs: number): WritePositions {
  const kept = new Map<string, { lsn: bigint; expires: number }>()
  return {
    async record(keys, lsn) {
      const now = Date.now()
      for (const key of keys) {
        const old = kept.get(key)
        kept.delete(key)
        kept.set(key, { lsn: old && old.expires > now && old.lsn > lsn ? old.lsn : lsn, expires: now + ttlMs })
      }
      for (const [key, entry] of kept) {
        if (entry.expires > now && kept.size <= MEMORY_ENTRIES) break
        kept.delete(key)
      }
    },
    async newest(keys) {
      const now = Date.now()
      let newest: bigint | null = null
      for (const key of keys) {
        const entry = kept.get(key)
        if (entry && entry.expires > now && (newest === null || entry.lsn > newest)) newest = entry.lsn
      }
      return newest
    },
    async close() {},
  }
}

/** Sets the key to the larger of its value and ARGV[1], with a fresh expiry. */
const KEEP_NEWEST = `
local old = redis.call('GET', KEYS[1])
if old and old > ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1`

export function redisWritePositions(url: string, prefix: string, ttlMs: number): WritePositions {
  // Without a connection a lookup fails at once, and the read goes to the primary.
  const redis = failFastRedis(url, 'civic-survey-write-positions')
  const namespace = `${prefix}wal:`
  return {
    async record(keys, lsn) {
      await Promise.all(keys.map((key) => redis.eval(KEEP_NEWEST, 1, namespace + key, asText(lsn), String(ttlMs))))
    },
    async newest(keys) {
      if (keys.length === 0) return null
      const values = await redis.mget(keys.map((key) => namespace + key))
      let newest: bigint | null = null
      for (const value of values) {
        if (value === null) continue
        const lsn = BigInt(`0x${value}`)
        if (newest === null || lsn > newest) newest = lsn
      }
      return newest
    },
    async close() {
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect())
      else redis.disconnect()
    },
  }
}
