import { createHmac, randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Config } from '../../config.ts'
import type { Database } from '../../db/database.ts'

const cache = new WeakMap<Kysely<Database>, Promise<Buffer>>()

/**
 * The key that signs one-time codes: SECRET_KEY when set, otherwise a random key created once and kept
 * in the database, so that every process of one deployment signs and checks alike.
 */
export function signingKey(db: Kysely<Database>, config: Config): Promise<Buffer> {
  if (config.secretKey) return Promise.resolve(Buffer.from(config.secretKey, 'utf8'))
  let key = cache.get(db)
  if (!key) {
    key = (async () => {
      await db
        .insertInto('service_secrets')
        .values({ name: 'signing_key', value: randomBytes(32).toString('base64') })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute()
      const row = await db.selectFrom('service_secrets').select('value').where('name', '=', 'signing_key').executeTakeFirstOrThrow()
      return Buffer.from(row.value, 'base64')
    })()
    key.catch(() => cache.delete(db))
    cache.set(db, key)
  }
  return key
}

export function hmac(key: Buffer, ...parts: (string | number)[]): Buffer {
  return createHmac('sha256', key).update(parts.join('\u0000')).digest()
}
