import { createHmac } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/database.ts'
import { storedSigningKey } from './secrets.repository.ts'

const cache = new WeakMap<Kysely<Database>, Promise<Buffer>>()

/**
 * The key that signs one-time codes: SECRET_KEY when set, otherwise a random key created once and kept
 * in the database, so that every process of one deployment signs and checks alike.
 */
export function signingKey(db: Kysely<Database>, config: Config): Promise<Buffer> {
  if (config.secretKey) return Promise.resolve(Buffer.from(config.secretKey, 'utf8'))
  let key = cache.get(db)
  if (!key) {
    key = storedSigningKey(db)
    key.catch(() => cache.delete(db))
    cache.set(db, key)
  }
  return key
}

export function hmac(key: Buffer, ...parts: (string | number)[]): Buffer {
  return createHmac('sha256', key).update(parts.join('\u0000')).digest()
}
