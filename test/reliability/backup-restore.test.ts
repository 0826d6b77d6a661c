import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { sql } from 'kysely'
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect.ts'
import { votersWithTokens, type Voter } from '../helpers/voters.ts'
import { dataDirFromTemplate, databaseUrlFor, serverUrl, serviceDatabaseEnv } from '../helpers/databases.ts'
import { runCommand, spawnCommand } from '../cli/run-command.ts'
import { freshDatabase, onServer, serveUntilReady, until, type ServeProcess } from './support.ts'

/**
 * Backups and restores as docs/operations.md tells them. PostgreSQL: `pg_dump -Fc` of a database a real `serve` is
 * answering votes on, `pg_restore` into a new database, then `migrate`, `check` and `serve` on it. The embedded
 * database: `civic-survey backup` refused while `serve` holds the directory, taken once it stopped, and
 * `civic-survey restore` into another directory. Each restored database must hold a prefix of what was sent, in order,
 * with every figure equal to a recomputation.
 */
const onPostgres = Boolean(serverUrl())
const VOTERS = 6

type Answer = number | 'skip'
interface Sent {
  answer: Answer
  sentAt: number
  ackedAt: number | null
}

let voters: Voter[]
let questions: number[]
/** `voter:question` -> every answer sent, in order (each voter sends one at a time). */
const sent = new Map<string, Sent[]>()
/** When the load began, on the database's clock: answers older than this are the seed's. */
let loadStart: Date

const open = (env: Record<string, string>) =>
  connectDatabase({ databaseUrl: env.DATABASE_URL || null, directUrl: env.DATABASE_DIRECT_URL, dataDir: env.DATA_DIR ?? '' })

async function withDatabase<T>(env: Record<string, string>, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await open(env)
  try {
    return await work(handle)
  } finally {
    await handle.close()
  }
}

/** Voters with sign-in tokens, and the likert questions open to them for the next hour. */
async function prepare(env: Record<string, string>): Promise<void> {
  await withDatabase(env, async ({ db }) => {
    voters = await votersWithTokens(db, VOTERS, 'backup test')
    const rows = await db
      .selectFrom('questions')
      .select('id')
      .where('subtype', '=', 'likert')
      .where('publish', '=', true)
      .where((eb) => eb.or([eb('start_at', 'is', null), eb('start_at', '<=', new Date())]))
      .where((eb) => eb.or([eb('end_at', 'is', null), eb('end_at', '>', new Date(Date.now() + 3_600_000))]))
      .orderBy('id')
      .limit(12)
      .execute()
    questions = rows.map((row) => row.id)
    const { rows: clock } = await sql<{ now: Date; seeded: Date | null }>`
      SELECT now() AS now, (SELECT max(modified_at) FROM question_votes) AS seeded`.execute(db)
    loadStart = clock[0].now
    assert.ok(clock[0].seeded === null || clock[0].seeded < loadStart, 'the seed answered before the test starts')
  })
  assert.equal(voters.length, VOTERS)
  assert.ok(questions.length >= 4, `likert questions open to answers: ${questions}`)
}

/** One client per voter, each sending its next answer when the last one is acknowledged, until stopped. */
function load(base: string) {
  let running = true
  let acks = 0
  const refusals: string[] = []
  const client = async (voter: Voter, index: number) => {
    for (let n = index; running; n++) {
      const question = questions[(n * 7 + index) % questions.length]
      const answer: Answer = n % 6 === 5 ? 'skip' : 1 + ((n * 3 + index) % 5)
      const key = `${voter.id}:${question}`
      const entry: Sent = { answer, sentAt: performance.now(), ackedAt: null }
      sent.set(key, [...(sent.get(key) ?? []), entry])
      const response = await fetch(`${base}/api/question_votes/`, {
        method: 'POST',
        headers: { authorization: `Token ${voter.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(answer === 'skip' ? { object_id: question, skipped: true } : { object_id: question, value: answer }),
      })
      const text = await response.text()
      if (response.status !== 200 && response.status !== 201) {
        refusals.push(`${response.status} ${text}`)
        continue
      }
      entry.ackedAt = performance.now()
      acks++
    }
  }
  const clients = Promise.all(voters.map(client))
  return {
    acks: () => acks,
    refusals,
    async stop() {
      running = false
      await clients
    },
  }
}

/** `voter:question` -> the answers made since the load began that the database holds, oldest first. */
async function answersSinceLoad(env: Record<string, string>): Promise<Map<string, Answer[]>> {
  const { rows } = await withDatabase(env, ({ db }) =>
    sql<{ user_id: number; question_id: number; value: number | null; skipped: boolean }>`
      SELECT user_id, question_id, value, skipped FROM (
        SELECT user_id, question_id, value, skipped, answered_at AS at, id, 0 AS current FROM question_vote_history
        WHERE answered_at >= ${loadStart} AND user_id = ANY(${voters.map((v) => v.id)}) AND question_id = ANY(${questions})
        UNION ALL
        SELECT user_id, question_id, value, skipped, modified_at, id, 1 FROM question_votes
        WHERE modified_at >= ${loadStart} AND user_id = ANY(${voters.map((v) => v.id)}) AND question_id = ANY(${questions})
      ) AS answers
      ORDER BY user_id, question_id, current, at, id`.execute(db),
  )
  const held = new Map<string, Answer[]>()
  for (const row of rows) {
    const key = `${row.user_id}:${row.question_id}`
    held.set(key, [...(held.get(key) ?? []), row.skipped ? 'skip' : row.value!])
  }
  return held
}

/**
 * Each key's answers in the restored database are the first n sent, in order, with n at least those acknowledged
 * before the backup began and at most those sent before it ended. Returns the total n.
 */
function assertPrefix(held: Map<string, Answer[]>, backupStart: number, backupEnd: number): number {
  let total = 0
  for (const key of new Set([...held.keys(), ...sent.keys()])) {
    const answers = held.get(key) ?? []
    const log = sent.get(key) ?? []
    const acknowledged = log.filter((entry) => entry.ackedAt !== null && entry.ackedAt < backupStart).length
    const sentBefore = log.filter((entry) => entry.sentAt < backupEnd).length
    assert.deepEqual(
      answers,
      log.slice(0, answers.length).map((entry) => entry.answer),
      `${key}: the restored answers are the first ones sent, in order`,
    )
    assert.ok(answers.length >= acknowledged, `${key}: ${answers.length} restored, ${acknowledged} acknowledged before the backup`)
    assert.ok(answers.length <= sentBefore, `${key}: ${answers.length} restored, ${sentBefore} sent before it ended`)
    total += answers.length
  }
  return total
}

/** Each test question's non-skipped answers, read before a server holds the database (PGlite has one owner). */
async function answerCounts(env: Record<string, string>): Promise<Map<number, number>> {
  const { rows } = await withDatabase(env, ({ db }) =>
    sql<{ id: number; answers: number }>`
      SELECT q.id, (SELECT count(*) FROM question_votes v WHERE v.question_id = q.id AND NOT v.skipped)::int AS answers
      FROM questions q WHERE q.id = ANY(${questions})`.execute(db),
  )
  return new Map(rows.map((row) => [row.id, row.answers]))
}

/** Through HTTP: each question's direct answer count, which with MIN_CELL_SIZE=1 is every non-skipped answer. */
async function assertCountsServed(base: string, expected: Map<number, number>): Promise<void> {
  assert.equal(expected.size, questions.length)
  for (const [id, answers] of expected) {
    const response = await fetch(`${base}/api/questions/${id}/`)
    assert.equal(response.status, 200)
    const question = (await response.json()) as { direct_vote_count: number }
    assert.equal(question.direct_vote_count, answers, `question ${id}: the served count is the restored answers'`)
  }
}

const totalSent = () => [...sent.values()].reduce((sum, log) => sum + log.length, 0)

/** A client binary of the server's major version or newer (pg_dump refuses an older one), or null. */
function postgresTool(name: 'pg_dump' | 'pg_restore', serverMajor: number): string | null {
  for (const candidate of [`/usr/lib/postgresql/${serverMajor}/bin/${name}`, name]) {
    const result = spawnSync(candidate, ['--version'], { encoding: 'utf8' })
    const major = Number(/\(PostgreSQL\) (\d+)/.exec(result.stdout ?? '')?.[1])
    if (result.status === 0 && major >= serverMajor) return candidate
  }
  return null
}

function run(command: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('error', reject)
    child.on('exit', (code) => resolve({ code, stderr }))
  })
}

async function stopServer(server: ServeProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return
  server.child.kill('SIGTERM')
  assert.equal(await server.exited, 0, server.output())
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-backup-'))
const cleanups: (() => Promise<void>)[] = []
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {})
  fs.rmSync(scratch, { recursive: true, force: true })
})

test(
  'pg_dump of a live database, pg_restore into a new one: a prefix of the answers sent, check clean, and served',
  { skip: !onPostgres && 'PostgreSQL only: the embedded database has the backup and restore commands, tested below' },
  async (t) => {
    const [{ major }] = await onServer(
      async (client) => (await client.query('SELECT current_setting($1)::int / 10000 AS major', ['server_version_num'])).rows,
    )
    const pgDump = postgresTool('pg_dump', major)
    const pgRestore = postgresTool('pg_restore', major)
    if (!pgDump || !pgRestore) return t.skip(`no pg_dump and pg_restore of PostgreSQL ${major} or newer on this machine`)

    const source = await freshDatabase()
    cleanups.push(source.drop)
    await prepare(source.service)
    let server: ServeProcess | undefined
    const file = path.join(scratch, 'live.dump')
    let backupStart = 0
    let backupEnd = 0
    try {
      let base: string
      ;({ server, base } = await serveUntilReady(source.service))
      const traffic = load(base)
      try {
        await until(() => traffic.acks() >= 30, `30 answers acknowledged\n${server.output()}`, 60_000)
        // pg_dump reaches the server itself (source.url), never a transaction pooler: its snapshot is a session's.
        backupStart = performance.now()
        const dump = await run(pgDump, ['--format=custom', `--file=${file}`, `--dbname=${source.url}`])
        backupEnd = performance.now()
        assert.equal(dump.code, 0, dump.stderr)
        const acksAfterDump = traffic.acks()
        await until(() => traffic.acks() >= acksAfterDump + 30, 'answers go on after the dump', 60_000)
      } finally {
        await traffic.stop()
      }
      assert.deepEqual(traffic.refusals, [], 'every answer was taken')
      const during = [...sent.values()].flat().filter((entry) => entry.sentAt < backupEnd && (entry.ackedAt ?? Infinity) > backupStart)
      assert.ok(during.length > 0, 'answers were in flight while pg_dump ran')
      t.diagnostic(`${totalSent()} answers sent, ${during.length} in flight during pg_dump (${Math.round(backupEnd - backupStart)} ms)`)
    } finally {
      await stopServer(server)
    }

    // A new database, restored by a role that need not own what the dump names; -j restores tables side by side.
    const restored = `${source.name}_restored`
    const drop = () => onServer(async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${restored} WITH (FORCE)`)))
    await drop()
    cleanups.push(drop)
    await onServer((client) => client.query(`CREATE DATABASE ${restored} TEMPLATE template0`))
    const restoring = await run(pgRestore, [
      '--no-owner',
      '--jobs=2',
      '--exit-on-error',
      `--dbname=${databaseUrlFor(serverUrl()!, restored)}`,
      file,
    ])
    assert.equal(restoring.code, 0, restoring.stderr)
    assert.equal(restoring.stderr, '')
    const env = serviceDatabaseEnv(restored)
    const extensions = await withDatabase(
      env,
      async ({ db }) => (await sql<{ extname: string }>`SELECT extname FROM pg_extension`.execute(db)).rows,
    )
    assert.deepEqual(
      extensions.map((row) => row.extname),
      ['plpgsql'],
      'the migrations create no extension a restore must install first',
    )

    const migrate = await runCommand(['migrate'], env)
    assert.equal(migrate.code, 0, migrate.stderr)
    assert.match(migrate.stderr, /database is up to date/)
    const check = await runCommand(['check'], env)
    assert.equal(check.code, 0, `check on the restored database:\n${check.stdout}${check.stderr}`)
    assert.match(check.stderr, /every stored figure equals a recomputation/)
    const told = await runCommand(['backup', file], env)
    assert.equal(told.code, 2)
    assert.match(told.stderr, /is a PostgreSQL server; back it up with pg_dump -Fc/)

    const restoredAnswers = assertPrefix(await answersSinceLoad(env), backupStart, backupEnd)
    assert.ok(restoredAnswers > 0, 'the dump holds answers of the load')
    assert.ok(restoredAnswers <= totalSent(), `${restoredAnswers} restored of ${totalSent()} sent`)
    assert.ok(restoredAnswers < totalSent(), 'answers sent after the dump are not in it')
    t.diagnostic(`the restored database holds ${restoredAnswers} of the ${totalSent()} answers sent`)

    const counts = await answerCounts(env)
    const { server: again, base } = await serveUntilReady({ ...env, MIN_CELL_SIZE: '1' })
    try {
      await assertCountsServed(base, counts)
    } finally {
      await stopServer(again)
    }
  },
)

test(
  'the embedded database: backup is refused while serve runs, taken once it stopped, and restore puts it in a new directory',
  { skip: onPostgres && 'PGlite only: a PostgreSQL server is backed up with pg_dump, tested above' },
  async (t) => {
    const dataDir = dataDirFromTemplate('tiny')
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }))
    const env = { DATA_DIR: dataDir, DATABASE_URL: '' }
    await prepare(env)
    const file = path.join(scratch, 'embedded.tar.gz')

    let { server, base } = await serveUntilReady(env)
    try {
      const traffic = load(base)
      try {
        await until(() => traffic.acks() >= 30, `30 answers acknowledged\n${server.output()}`, 60_000)
        const refused = spawnCommand(['backup', file], env)
        assert.equal(refused.code, 75, refused.stderr)
        assert.match(refused.stderr, new RegExp(`in use by process ${server.child.pid} \\(civic-survey serve\\)`))
        assert.ok(!fs.existsSync(file), 'a refused backup writes nothing')
      } finally {
        await traffic.stop()
      }
      assert.deepEqual(traffic.refusals, [], 'every answer was taken')
    } finally {
      await stopServer(server)
    }
    // Stopped cleanly, the server answered everything it took: the backup holds exactly what was acknowledged.
    assert.ok([...sent.values()].flat().every((entry) => entry.ackedAt !== null))
    const backupAt = performance.now()
    const backup = spawnCommand(['backup', file], env)
    assert.equal(backup.code, 0, backup.stderr)
    assert.match(backup.stderr, /^backed up the embedded database in .* newest migration \S+, in [\d.]+ s\n$/)
    t.diagnostic(backup.stderr.trim())

    // Answers after the backup change the original, not the copy.
    ;({ server, base } = await serveUntilReady(env))
    try {
      const traffic = load(base)
      await until(() => traffic.acks() >= 12, 'answers after the backup', 60_000)
      await traffic.stop()
      assert.deepEqual(traffic.refusals, [])
    } finally {
      await stopServer(server)
    }

    const copyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-data-'))
    cleanups.push(async () => fs.rmSync(copyDir, { recursive: true, force: true }))
    const copy = { DATA_DIR: copyDir, DATABASE_URL: '' }
    const restore = await runCommand(['restore', file], copy)
    assert.equal(restore.code, 0, restore.stderr)
    assert.match(restore.stderr, /^restored .* newest migration \S+; run `civic-survey check` before serving it\n$/)
    const again = await runCommand(['restore', file], copy)
    assert.equal(again.code, 1)
    assert.match(again.stderr, /already holds a database; --force replaces it/)

    const check = await runCommand(['check'], copy)
    assert.equal(check.code, 0, `check on the restored database:\n${check.stdout}${check.stderr}`)
    const copied = await answersSinceLoad(copy)
    const restoredAnswers = assertPrefix(copied, backupAt, backupAt)
    const acknowledgedBefore = [...sent.values()].flat().filter((entry) => entry.ackedAt! < backupAt).length
    assert.equal(restoredAnswers, acknowledgedBefore, 'the copy holds every answer acknowledged before the backup, and no later one')
    assert.ok(restoredAnswers > 0 && restoredAnswers < totalSent())

    const counts = await answerCounts(copy)
    ;({ server, base } = await serveUntilReady({ ...copy, MIN_CELL_SIZE: '1' }))
    try {
      await assertCountsServed(base, counts)
    } finally {
      await stopServer(server)
    }

    // --force puts the backup in place of the original, which moved on since, and keeps the original aside.
    const forced = await runCommand(['restore', file, '--force'], env)
    assert.equal(forced.code, 0, forced.stderr)
    const kept = /kept in (\S+)\n/.exec(forced.stderr)?.[1]
    assert.ok(kept && fs.existsSync(path.join(kept, 'PG_VERSION')), forced.stderr)
    assert.deepEqual(await answersSinceLoad(env), copied)
  },
)
