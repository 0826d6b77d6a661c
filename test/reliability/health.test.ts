import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import { migrations } from '../../src/db/migrations/index.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

const NEWEST = Object.keys(migrations).sort().at(-1)!

let t: TestApp
before(async () => {
  // Keys required and an allowance of two requests a minute: the probes must pass both.
  t = await createTestApp('empty', { REQUIRE_APP_KEY: 'true', RATE_LIMIT_IP: '2', RATE_LIMIT_ANONYMOUS: '2' })
})
after(() => t.close())

test('/healthz says the process is up, without a key, however often it is asked', async () => {
  for (let i = 0; i < 6; i++) {
    const response = await t.get('/healthz')
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(response.json(), { status: 'ok' })
    assert.equal(response.headers['cache-control'], 'no-store')
  }
})

test('/readyz says the database answers with its migrations current, without a key, however often it is asked', async () => {
  for (let i = 0; i < 6; i++) {
    const response = await t.get('/readyz')
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(response.json(), { status: 'ok', migration: NEWEST })
  }
  // The API itself still wants its key.
  assert.equal((await t.get('/api/tags/')).statusCode, 401)
})

test('/readyz answers 503 with Retry-After while the code needs a migration the database lacks', async () => {
  const db = t.database.db
  const row = await db
    .selectFrom('kysely_migration' as any)
    .selectAll()
    .where('name', '=', NEWEST)
    .executeTakeFirstOrThrow()
  await db
    .deleteFrom('kysely_migration' as any)
    .where('name', '=', NEWEST)
    .execute()
  try {
    const response = await t.get('/readyz')
    assert.equal(response.statusCode, 503)
    assert.equal(response.headers['retry-after'], '5')
    const previous = Object.keys(migrations).sort().at(-2)
    assert.deepEqual(response.json(), { detail: `Database migrations are not current: applied ${previous}, needed ${NEWEST}.` })
    assert.equal((await t.get('/healthz')).statusCode, 200)
  } finally {
    await db
      .insertInto('kysely_migration' as any)
      .values(row)
      .execute()
  }
  assert.equal((await t.get('/readyz')).statusCode, 200)
})

test('/readyz stays ready on a database migrated further by a newer release', async () => {
  const db = t.database.db
  await sql`insert into kysely_migration (name, timestamp) values ('9999-12-31-999-from-a-newer-release', now()::text)`.execute(db)
  try {
    const response = await t.get('/readyz')
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual(response.json(), { status: 'ok', migration: '9999-12-31-999-from-a-newer-release' })
  } finally {
    await sql`delete from kysely_migration where name = '9999-12-31-999-from-a-newer-release'`.execute(db)
  }
})

test('/readyz answers 503 on a database never migrated', async () => {
  const db = t.database.db
  await sql`alter table kysely_migration rename to kysely_migration_aside`.execute(db)
  try {
    const response = await t.get('/readyz')
    assert.equal(response.statusCode, 503)
    assert.deepEqual(response.json(), { detail: `Database migrations are not current: applied none, needed ${NEWEST}.` })
  } finally {
    await sql`alter table kysely_migration_aside rename to kysely_migration`.execute(db)
  }
})

test('the probes are not resources of the API: the root does not list them', async () => {
  const keyless = await createTestApp('empty')
  try {
    const root = await keyless.json<Record<string, string>>('/api/')
    assert.ok(Object.keys(root).length > 0)
    assert.ok(
      Object.values(root).every((url) => !/healthz|readyz/.test(url)),
      'no probe in the API root',
    )
  } finally {
    await keyless.close()
  }
})
