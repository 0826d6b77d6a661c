import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { connectDatabase } from '../../src/db/connect.ts'
import { commandDatabase, serverUrl } from '../helpers/databases.ts'
import { SHIPPED_CLI_SCRIPT } from '../helpers/cli/command.ts'
import { freePort } from '../helpers/free-port.ts'
import { runCommand, spawnCommand } from './run-command.ts'

let scratch: Awaited<ReturnType<typeof commandDatabase>>

/** The command line's function in this process; `spawned` where the process's exit status is the point. */
const run = (args: string[], env: Record<string, string> = {}) => runCommand(args, { ...scratch.env, ...env })
const spawned = (args: string[], env: Record<string, string> = {}) => spawnCommand(args, { ...scratch.env, ...env })

before(async () => {
  // Made but not migrated: the migrate command applies every migration.
  scratch = await commandDatabase('blank')
})
after(() => scratch.cleanup())

test('a bad configuration value stops the command with one line naming the variable', () => {
  const result = spawned(['migrate'], { PORT: 'eighty' })
  assert.equal(result.code, 2)
  assert.equal(result.stderr.trim(), 'configuration error: PORT: expected a whole number, got "eighty"')
  assert.equal(spawned(['migrate'], { REQUIRE_APP_KEY: 'perhaps' }).stderr.trim().split('\n').length, 1)
})

test('migrate applies the migrations once', async () => {
  const first = await run(['migrate'])
  assert.equal(first.code, 0, first.stderr)
  assert.match(first.stderr, /applied 2026-11-22-001-initial-schema/)
  assert.match((await run(['migrate'])).stderr, /database is up to date/)
})

test(
  'behind a pooler, migrate runs on the primary itself (DATABASE_DIRECT_URL)',
  { skip: !serverUrl() && 'PostgreSQL only: PGlite has no pooler' },
  async () => {
    // DATABASE_URL names a port where nothing listens: the migrations must not go there.
    const nowhere = new URL(scratch.env.DATABASE_URL)
    nowhere.port = String(await freePort())
    const direct = scratch.env.DATABASE_DIRECT_URL ?? scratch.env.DATABASE_URL
    const result = await run(['migrate'], { DATABASE_URL: nowhere.toString(), DATABASE_DIRECT_URL: direct })
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stderr, /database is up to date/)
  },
)

test('app-key create prints the key alone, and only its hash is stored', async () => {
  const result = await run(['app-key', 'create', '--name', 'chatbot'])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /^[0-9a-f]{64}\n$/)
  const key = result.stdout.trim()
  const listed = await run(['app-key', 'list'])
  assert.match(listed.stdout, /chatbot/)
  assert.ok(!listed.stdout.includes(key), 'keys are never listed')
  const handle = await connectDatabase({ databaseUrl: scratch.env.DATABASE_URL || null, dataDir: scratch.env.DATA_DIR ?? '' })
  try {
    const row = await handle.db.selectFrom('app_keys').select('key_hash').where('name', '=', 'chatbot').executeTakeFirstOrThrow()
    assert.equal(row.key_hash, createHash('sha256').update(key).digest('hex'))
  } finally {
    await handle.close()
  }
})

test('seed fills an empty database, refuses a non-empty one, and --force starts over', async () => {
  const first = await run(['seed', '--scale', 'tiny', '--seed', '7'])
  assert.equal(first.code, 0, first.stderr)
  assert.match(first.stderr, /seeded: \d+ users/)
  const again = await run(['seed', '--scale', 'tiny'])
  assert.equal(again.code, 1)
  assert.match(again.stderr, /already has users or questions/)
  const forced = await run(['seed', '--scale', 'tiny', '--seed', '7', '--force'])
  assert.equal(forced.code, 0, forced.stderr)
  assert.equal((await run(['seed', '--scale', 'huge'])).code, 2)
})

test('check finds the seeded figures exact, reports a tampered one, and recompute --liquid repairs it', async () => {
  const clean = await run(['check'])
  assert.equal(clean.code, 0, clean.stdout + clean.stderr)
  assert.match(clean.stderr, /every stored figure equals a recomputation/)
  const handle = await connectDatabase({ databaseUrl: scratch.env.DATABASE_URL || null, dataDir: scratch.env.DATA_DIR ?? '' })
  let voteId: number
  let kept: { question: number; user: number }
  try {
    const vote = await handle.db
      .selectFrom('question_votes')
      .select(['id', 'liquid_weight', 'question_id'])
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow()
    voteId = vote.id
    await handle.db
      .updateTable('question_votes')
      .set({ liquid_weight: vote.liquid_weight + 3 })
      .where('id', '=', vote.id)
      .execute()
    await handle.db.updateTable('tags').set({ votes_count: 999999 }).where('id', '=', 1).execute()
    // A kept block size (migration 031) that no walk gives.
    const someone = await handle.db.selectFrom('users').select('id').orderBy('id').limit(1).executeTakeFirstOrThrow()
    kept = { question: vote.question_id, user: someone.id }
    await handle.db.insertInto('liquid_blocks').values({ question_id: kept.question, user_id: kept.user, intree: 77 }).execute()
    // An answer counter, kept beside the user row (migration 051).
    await handle.db.updateTable('user_answer_counts').set({ public_count_votes: 4321 }).where('id', '=', someone.id).execute()
  } finally {
    await handle.close()
  }
  const dirty = spawned(['check'])
  assert.equal(dirty.code, 1)
  assert.match(dirty.stdout, new RegExp(`liquid\tquestion \\d+\tquestion_votes ${voteId} liquid_weight`))
  assert.match(dirty.stdout, /figure\ttags 1\tvotes_count\tstored 999999/)
  assert.match(dirty.stdout, new RegExp(`figure\tuser_answer_counts ${kept.user}\tpublic_count_votes\tstored 4321`))
  assert.match(dirty.stdout, new RegExp(`liquid\tquestion ${kept.question}\tliquid_blocks user ${kept.user}\tstored 77\tresolved \\d+`))
  const repaired = await run(['recompute', '--liquid'])
  assert.equal(repaired.code, 0, repaired.stderr)
  assert.match(repaired.stderr, /delegations resolved again: [1-9]\d* stored values corrected/)
  assert.equal((await run(['check'])).code, 0)
})

// The shipped script, as a person runs it: the other tests start the bundled entry.
test('serve answers on PORT and stops cleanly on SIGTERM', async () => {
  const port = await freePort()
  const child = spawn(process.execPath, [SHIPPED_CLI_SCRIPT, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...scratch.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk) => (output += chunk))
  child.stderr.on('data', (chunk) => (output += chunk))
  try {
    const deadline = Date.now() + 60_000
    while (!output.includes('Server listening') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    const response = await fetch(`http://127.0.0.1:${port}/api/questions/?page_size=1`)
    assert.equal(response.status, 200)
    const body = (await response.json()) as { count: number; next: string }
    assert.ok(body.count > 0)
    assert.equal(body.next, `http://127.0.0.1:${port}/api/questions/?page=2&page_size=1`)
    await new Promise((r) => setTimeout(r, 100))
    assert.match(output, /GET \/api\/questions\/\?page_size=1 200/, 'one log line per request')
  } finally {
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    assert.equal(await exited, 0)
  }
})

test('user staff grants and withdraws staff rights; user sign-out revokes every token', async () => {
  assert.equal((await run(['migrate'])).code, 0)
  const handle = await connectDatabase({ databaseUrl: scratch.env.DATABASE_URL || null, dataDir: scratch.env.DATA_DIR ?? '' })
  let userId: number
  try {
    userId = (await handle.db.insertInto('users').values({ username: 'Moderator' }).returning('id').executeTakeFirstOrThrow()).id
    await handle.db
      .insertInto('auth_tokens')
      .values([
        { user_id: userId, key_hash: 'a' },
        { user_id: userId, key_hash: 'b' },
      ])
      .execute()
  } finally {
    await handle.close()
  }
  const granted = await run(['user', 'staff', '--username', 'moderator'])
  assert.equal(granted.code, 0, granted.stderr)
  assert.match(granted.stderr, /Moderator \(\d+\) is now staff/)
  assert.equal((await run(['user', 'sign-out', '--username', 'Moderator'])).code, 0)
  assert.equal((await run(['user', 'staff', '--username', 'nobody-here'])).code, 2)
  assert.equal((await run(['user', 'staff'])).code, 2)
  const check = await connectDatabase({ databaseUrl: scratch.env.DATABASE_URL || null, dataDir: scratch.env.DATA_DIR ?? '' })
  try {
    const user = await check.db.selectFrom('users').select('is_staff').where('id', '=', userId).executeTakeFirstOrThrow()
    assert.equal(user.is_staff, true)
    const live = await check.db
      .selectFrom('auth_tokens')
      .select('id')
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute()
    assert.equal(live.length, 0)
  } finally {
    await check.close()
  }
  const withdrawn = await run(['user', 'staff', '--username', 'Moderator', '--off'])
  assert.match(withdrawn.stderr, /no longer staff/)
})
