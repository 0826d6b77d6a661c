import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import pg from 'pg'
import { commandDatabase } from '../helpers/databases.ts'

/** scripts/citus-check.ts in a process of its own, as CI runs it: its exit status and report. */
function citusCheck(args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/citus-check.ts', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    timeout: 180_000,
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe('scripts/citus-check.ts', { skip: process.env.DATABASE_URL ? false : 'PostgreSQL only: it reads a server catalog' }, () => {
  let scratch: Awaited<ReturnType<typeof commandDatabase>>
  before(async () => {
    scratch = await commandDatabase('empty')
  })
  after(() => scratch?.cleanup())

  test('on a scratch database of the migrations: the plan fits the schema, and the changes the move needs are listed', () => {
    const { code, stdout, stderr } = citusCheck([])
    assert.equal(code, 0, stderr)
    assert.match(stdout, /^question_votes: distributed by question_id \(co-located with the question group\)/m)
    assert.match(stdout, /holds {3}distribution column question_id integer NOT NULL/)
    // Known violations: the answers' primary key lacks the question, and answers reference users on the coordinator.
    assert.match(stdout, /change {2}PRIMARY KEY question_votes_pkey \(id\) must include question_id: \(question_id, id\)/)
    assert.match(
      stdout,
      /change {2}FOREIGN KEY question_votes_user_id_fkey \(user_id\) → users \(id\): a distributed table cannot reference users/,
    )
    assert.match(
      stdout,
      /holds {3}FOREIGN KEY question_votes_question_id_fkey \(question_id\) → questions \(id\): co-located on question_id/,
    )
    // A reference table may not point at a distributed one.
    assert.match(stdout, /FOREIGN KEY question_collection_items_question_id_fkey .*a reference table cannot reference a distributed one/)
    assert.match(stdout, /unplanned \(in the schema, not in the plan\): none/)
    assert.match(stdout, /missing \(in the plan, not in the schema\): none/)
  })

  test('a table the plan does not place fails the check (schema drift), naming it', async () => {
    const client = new pg.Client({ connectionString: scratch.env.DATABASE_URL })
    await client.connect()
    try {
      await client.query('CREATE TABLE citus_check_stray (id serial PRIMARY KEY)')
    } finally {
      await client.end()
    }
    const { code, stdout, stderr } = citusCheck(['--url', scratch.env.DATABASE_URL])
    assert.equal(code, 1)
    assert.match(stdout, /unplanned \(in the schema, not in the plan\): citus_check_stray/)
    assert.match(stderr, /no longer matches the schema/)
    const json = citusCheck(['--url', scratch.env.DATABASE_URL, '--json'])
    assert.deepEqual(JSON.parse(json.stdout).unplanned, ['citus_check_stray'])
  })
})
