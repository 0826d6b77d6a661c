import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { commandDatabase, databaseFromTemplate } from '../helpers/databases.ts'
import { drift, type Catalog } from '../../scripts/generate-db-functions.ts'

/** Every Markdown file under docs/, as one text. */
function docsText(): string {
  const files = fs.readdirSync('docs', { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.md'))
  return files.map((name) => fs.readFileSync(path.join('docs', name), 'utf8')).join('\n')
}

test('every function and view of the migrated database is named in docs/', async () => {
  const handle = await databaseFromTemplate('empty')
  try {
    const { rows } = await sql<{ name: string; kind: string }>`
      SELECT p.proname AS name, 'function' AS kind FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace
        AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      UNION
      SELECT c.relname, 'view' FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('v', 'm')
        AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
      ORDER BY 1`.execute(handle.db)
    assert.ok(rows.filter((row) => row.kind === 'function').length > 40, 'the migrations make the answer calls and their helpers')
    const docs = docsText()
    const unnamed = rows.filter((row) => !new RegExp(`(?<![A-Za-z0-9_])${row.name}(?![A-Za-z0-9_])`).test(docs))
    assert.deepEqual(
      unnamed.map((row) => `${row.kind} ${row.name}`),
      [],
      'add each to its group in src/db/function-groups.ts and run `npm run db:functions` (docs/database.md)',
    )
  } finally {
    await handle.close()
  }
})

test('the groups check names a function in no group and one that is gone', () => {
  const catalog: Catalog = {
    routines: [
      { name: 'cast_likert', kind: 'function', definition: '' },
      { name: 'stray_helper', kind: 'function', definition: '' },
    ],
    triggers: [],
  }
  const groups = [{ title: 'Answering', about: '', members: { cast_likert: 'answers', withdraw_answer: 'withdraws' } }]
  assert.deepEqual(drift(catalog, groups), { ungrouped: ['stray_helper'], gone: ['withdraw_answer'], twice: [] })
})

/** scripts/generate-db-functions.ts in its verify mode, in a process of its own, on a database as it is. */
function verify(url: string) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/generate-db-functions.ts', '--url', url], {
    env: { ...process.env, VERIFY: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('npm run db:functions', { skip: process.env.DATABASE_URL ? false : 'PostgreSQL only: it reads a server catalog' }, () => {
  let scratch: Awaited<ReturnType<typeof commandDatabase>>
  before(async () => {
    scratch = await commandDatabase('empty')
  })
  after(() => scratch?.cleanup())

  test('src/db/functions.generated.sql and docs/database.md are what the migrations make', () => {
    const { code, stderr } = verify(scratch.env.DATABASE_DIRECT_URL ?? scratch.env.DATABASE_URL)
    assert.equal(code, 0, stderr)
  })

  test('a function the groups do not place fails it, naming the function', async () => {
    const url = scratch.env.DATABASE_DIRECT_URL ?? scratch.env.DATABASE_URL
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query('CREATE FUNCTION stray_helper() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$')
    } finally {
      await client.end()
    }
    const { code, stderr } = verify(url)
    assert.equal(code, 1)
    assert.match(stderr, /in no group: stray_helper \(add each to the group it serves/)
  })
})
