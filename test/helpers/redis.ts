import { Redis } from 'ioredis'

/** The Redis server the tests that share state between processes use (the machine's own, unless named). */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

async function redisReachable(): Promise<boolean> {
  const probe = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1_000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  probe.on('error', () => {})
  try {
    await probe.connect()
    return (await probe.ping()) === 'PONG'
  } catch {
    return false
  } finally {
    probe.disconnect()
  }
}

/** A test's `skip` when Redis is absent: CI has one (and says so with REQUIRE_REDIS), elsewhere it may be missing. */
export const redisSkip = async (): Promise<string | false> =>
  (await redisReachable()) || process.env.REQUIRE_REDIS ? false : `no Redis at ${REDIS_URL}`

/** A key prefix unique to this run and this file, so repeated runs and both database suites never share keys. */
export const redisPrefix = (name: string) => `civic-survey-test:${name}:${process.pid}-${Date.now()}:`

/** Removes every key under the prefix. */
export async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL)
  const keys = await redis.keys(`${prefix}*`)
  if (keys.length) await redis.del(...keys)
  await redis.quit()
}
