import { randomBytes } from 'node:crypto'
import { failFastRedis } from '../db/redis.ts'

/**
 * A mark per person, moved by each of their own writes before the answer to it leaves, that every process can read:
 * a process keeping that person's record compares marks, so the person reads their own write at once whichever
 * process they ask next. In Redis when REDIS_URL is set; without it there is nothing to share (one process drops the
 * record itself; several learn of it from the database's notice).
 */
export interface OwnMarks {
  /** Whether marks are shared between processes (and worth reading on every request). */
  readonly shared: boolean
  /** The person's latest mark, or null when they wrote nothing within the marks' lifetime. Throws when unknown. */
  read(userId: number): Promise<string | null>
  /**
   * Moves the person's mark; resolves with the new one once every process can read it, and the one it replaced (so
   * a process knows whether what it kept was current when the person wrote).
   */
  touch(userId: number): Promise<{ mark: string | null; previous: string | null }>
  close(): Promise<void>
}

export const unsharedOwnMarks: OwnMarks = {
  shared: false,
  read: async () => null,
  touch: async () => ({ mark: null, previous: null }),
  close: async () => {},
}

/**
 * Marks in Redis, each living `ttlMs`: longer than anything a process keeps is served without being rebuilt, so a
 * mark gone means no write of the person's that a kept answer could miss.
 */
export function redisOwnMarks(url: string, prefix: string, ttlMs: number): OwnMarks {
  // Without a connection a read fails at once, and the request is answered without the record.
  const redis = failFastRedis(url, 'civic-survey-own-marks')
  const namespace = `${prefix}own:`
  let sequence = 0
  const process = randomBytes(6).toString('hex')
  return {
    shared: true,
    read: (userId) => redis.get(namespace + userId),
    async touch(userId) {
      const mark = `${process}:${++sequence}`
      const previous = await redis.set(namespace + userId, mark, 'PX', ttlMs, 'GET')
      return { mark, previous }
    },
    async close() {
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect())
      else redis.disconnect()
    },
  }
}
