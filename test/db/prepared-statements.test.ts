import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { sql } from 'kysely'
import pg from 'pg'
import { loadConfig } from '../../src/config.ts'
import { connectDatabase } from '../../src/db/connect.ts'
import { PreparedStatements } from '../../src/db/prepared-statements.ts'
import { databaseUrlFor, serverUrl } from '../helpers/databases.ts'

describe('which statements are prepared', () => {
  test('a text is named the second time it is sent, and keeps its name', () => {
    const prepared = new PreparedStatements()
    assert.equal(prepared.nameOf('SELECT 1'), undefined)
    const name = prepared.nameOf('SELECT 1')
    assert.match(name ?? '', /^civic_\d+$/)
    assert.equal(prepared.nameOf('SELECT 1'), name)
    assert.equal(prepared.nameOf('SELECT 2'), undefined)
    assert.notEqual(prepared.nameOf('SELECT 2'), name)
  })

  test('at most `most` texts are named; a stale one is sent unnamed from then on', () => {
    const prepared = new PreparedStatements(2)
    for (const text of ['a', 'a', 'b', 'b', 'c', 'c']) prepared.nameOf(text)
    assert.equal(prepared.size, 2)
    assert.equal(prepared.nameOf('c'), undefined)
    prepared.forget('a')
    assert.equal(prepared.nameOf('a'), undefined)
    assert.equal(prepared.nameOf('a'), undefined)
  })

  test('on by default, off when DATABASE_DIRECT_URL names another server (a transaction pooler), and settable', () => {
    const server = 'postgres://db.example/civic'
    assert.equal(loadConfig({ DATABASE_URL: server }).dbPreparedStatements, true)
    assert.equal(loadConfig({ DATABASE_URL: server, DATABASE_DIRECT_URL: server }).dbPreparedStatements, true)
    const pooled = { DATABASE_URL: 'postgres://pooler.example/civic', DATABASE_DIRECT_URL: server }
    assert.equal(loadConfig(pooled).dbPreparedStatements, false)
    assert.equal(loadConfig({ ...pooled, DB_PREPARED_STATEMENTS: 'on' }).dbPreparedStatements, true)
    assert.throws(() => loadConfig({ DB_PREPARED_STATEMENTS: 'sometimes' }), /DB_PREPARED_STATEMENTS/)
  })
})

const server = serverUrl()
describe('prepared statements on a PostgreSQL server', { skip: server ? false : 'needs DATABASE_URL' }, () => {
  test('a repeated statement is prepared once on its connection, and one whose columns changed still answers', async () => {
    const database = `civic_prepared_${process.pid}`
    const admin = new pg.Client({ connectionString: server! })
    await admin.connect()
    await admin.query(`DROP DATABASE IF EXISTS ${database}`)
    await admin.query(`CREATE DATABASE ${database}`)
    const handle = await connectDatabase({
      databaseUrl: databaseUrlFor(server!, database),
      dataDir: '',
      poolSize: 1,
      preparedStatements: true,
    })
    try {
      const { db } = handle
      for (let i = 1; i <= 4; i++) {
        const { rows } = await sql<{ n: number }>`SELECT ${i}::integer + 1 AS n`.execute(db)
        assert.equal(rows[0]!.n, i + 1)
      }
      const { rows: kept } = await sql<{ name: string; calls: number }>`
        SELECT name, generic_plans + custom_plans AS calls FROM pg_prepared_statements WHERE statement LIKE '%+ 1 AS n%'`.execute(db)
      assert.equal(kept.length, 1, 'one prepared statement for the text')
      assert.equal(Number(kept[0]!.calls), 3, 'the second, third and fourth sendings ran it')

      await sql`CREATE TABLE shapes (a integer)`.execute(db)
      await sql`INSERT INTO shapes VALUES (1)`.execute(db)
      const read = () => sql<Record<string, number | null>>`SELECT * FROM shapes`.execute(db)
      await read()
      assert.deepEqual((await read()).rows, [{ a: 1 }])
      await sql`ALTER TABLE shapes ADD COLUMN b integer`.execute(db)
      assert.deepEqual((await read()).rows, [{ a: 1, b: null }], 'sent again unnamed once its prepared form went stale')
      assert.deepEqual((await read()).rows, [{ a: 1, b: null }])
    } finally {
      await handle.close()
      await admin.query(`DROP DATABASE IF EXISTS ${database}`)
      await admin.end()
    }
  })
})
