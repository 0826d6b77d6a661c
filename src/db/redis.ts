import { Redis } from 'ioredis'

/**
 * A Redis connection for state processes share beside the database, tuned to fail fast: without a connection a
 * command fails at once (no offline queue) and the caller does without Redis, so a slow or absent Redis never holds
 * a request up. Errors are the caller's to report; none is thrown from the connection itself.
 */
export function failFastRedis(url: string, connectionName: string): Redis {
  const redis = new Redis(url, {
    connectTimeout: 1_000,
    commandTimeout: 500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectionName,
  })
  redis.on('error', () => {})
  return redis
}
