import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'

/** The signing key kept in the database: created by whichever process asks first, then the same for all. */
export async function storedSigningKey(db: Kysely<Database>): Promise<Buffer> {
  await db
    .insertInto('service_secrets')
    .values({ name: 'signing_key', value: randomBytes(32).toString('base64') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const row = await db.selectFrom('service_secrets').select('value').where('name', '=', 'signing_key').executeTakeFirstOrThrow()
  return Buffer.from(row.value, 'base64')
}
