import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { sql } from 'kysely'
import { connectDatabase, type DatabaseHandle } from '../../src/db/connect.ts'
import { newReadContext, readRouterOf, readRouting } from '../../src/db/read-routing.ts'
import { clusterSkipReason, startCluster, type PostgresCluster } from '../helpers/postgres-cluster.ts'

/**
 * Reads on a streaming replica (docs/operations.md, Read replicas), through HTTP: two app instances (two processes'
 * worth of pools, routers and listeners) share one primary, one replica and one Redis, as `serve` processes do.
 * `x-database-statements` (test apps only) says where a request's statements ran.
 */

// Long enough that a loaded machine (two suites side by side on two cores) never skips the paused replica before a
// test has read it; the test of skipping waits this long.
const MAX_LAG_MS = 5_000
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379'
const skip = clusterSkipReason()

let cluster: PostgresCluster
const opened: { t: TestApp; handle: DatabaseHandle }[] = []
let a: TestApp
let b: TestApp
let question: number
let author: { id: number; token: string }
const prefix = `civic-survey-test-${process.pid}-${randomBytes(3).toString('hex')}:`

const replicatedDatabase = () =>
  connectDatabase({
    databaseUrl: cluster.primaryUrl,
    dataDir: '',
    poolSize: 4,
    replicaUrls: [cluster.replicaUrl!],
    replicaMaxLagMs: MAX_LAG_MS,
    redisUrl: REDIS_URL,
    redisPrefix: prefix,
  })

async function replicatedApp(env: Record<string, string> = {}): Promise<TestApp> {
  const handle = await replicatedDatabase()
  const t = await createTestApp('tiny', env, undefined, { database: handle })
  opened.push({ t, handle })
  return t
}

const statements = (response: { headers: Record<string, unknown> }) => {
  const match = /primary=(\d+), replica=(\d+)/.exec(String(response.headers['x-database-statements']))
  assert.ok(match, 'the test app says where the statements ran')
  return { primary: Number(match[1]), replica: Number(match[2]) }
}

async function until(condition: () => Promise<boolean>, what: string, limitMs = 20_000): Promise<number> {
  const started = performance.now()
  while (!(await condition())) {
    if (performance.now() - started > limitMs) throw new Error(`gave up waiting: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return performance.now() - started
}

const readiness = async (t: TestApp) => {
  const response = await t.get('/readyz')
  return { code: response.statusCode, body: response.json() }
}
const replicaState = async (t: TestApp) => (await readiness(t)).body.databases?.replicas?.[0]?.state as string | undefined
const waitForState = (t: TestApp, state: string) => until(async () => (await replicaState(t)) === state, `the replica is ${state}`)

const commentsUrl = () => `/api/comments/?question=${question}&page_size=100`
const texts = (response: { json(): any }) => (response.json().results as { text: string }[]).map((c) => c.text)
const auth = (token: string) => ({ authorization: `Token ${token}` })

async function comment(text: string): Promise<void> {
  const response = await a.send('POST', '/api/comments/', { text, question }, author.token)
  assert.equal(response.statusCode, 201, response.body)
}

async function newUser(): Promise<{ id: number; token: string }> {
  const name = `scale-${randomBytes(4).toString('hex')}`
  const [row] = await cluster.onPrimary<{ id: number }>(
    `insert into users (username, email, first_name, last_name) values ($1, $1 || '@example.net', 'R', 'P') returning id`,
    [name],
  )
  return { id: row!.id, token: await a.tokenFor(row!.id) }
}

/** Why the tests cannot run after all (no Redis to share write positions through), found before the cluster starts. */
let missing: string | null = null

before(async () => {
  if (skip) return
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1_000 })
  const reachable = await redis.connect().then(
    async () => (await redis.quit(), null),
    (error: Error) => (redis.disconnect(), error.message),
  )
  if (reachable !== null) {
    missing = `needs Redis at ${REDIS_URL} to share write positions between processes (${reachable})`
    if (process.env.REQUIRE_REDIS === '1') throw new Error(missing)
    return
  }
  const started = performance.now()
  cluster = await startCluster({ replica: true })
  console.error(`# cluster (primary, replica) ready in ${Math.round(performance.now() - started)} ms`)
  a = await replicatedApp()
  b = await replicatedApp()
  const [row] = await cluster.onPrimary<{ id: number }>("select id from questions where publish and subtype = 'likert' order by id limit 1")
  question = row!.id
  author = await newUser()
  await waitForState(a, 'ok')
  await waitForState(b, 'ok')
})

after(async () => {
  for (const { t, handle } of opened.splice(0)) {
    await t.close()
    await handle.close()
  }
  await cluster?.stop()
  if (skip || missing) return
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 })
  const keys = await redis.keys(`${prefix}*`).catch(() => [])
  if (keys.length > 0) await redis.del(...keys)
  await redis.quit()
})

test(
  'an author reads their write at once through the other process, while anonymous readers there still read the replica',
  { skip },
  async (t) => {
    if (missing) return t.skip(missing)
    await cluster.onReplica('select pg_wal_replay_pause()')
    const text = `Read your writes ${randomBytes(3).toString('hex')}`
    try {
      await comment(text)
      // The replica cannot reach the author's position (replay paused): the author's read waits briefly, then reads
      // the primary.
      const mine = await b.get(commentsUrl(), auth(author.token))
      assert.equal(mine.statusCode, 200)
      assert.ok(texts(mine).includes(text), 'the author sees their comment through the other process')
      assert.equal(statements(mine).replica, 0)
      const anonymous = await b.get(commentsUrl())
      assert.equal(anonymous.statusCode, 200)
      assert.ok(statements(anonymous).replica > 0, 'anonymous reads still go to the replica')
      assert.ok(!texts(anonymous).includes(text), 'and show what it has replayed: not yet the comment')
    } finally {
      await cluster.onReplica('select pg_wal_replay_resume()')
    }
    const waited = await until(async () => texts(await b.get(commentsUrl())).includes(text), 'the replica replays the comment')
    console.error(`# anonymous readers saw the comment ${Math.round(waited)} ms after replay resumed`)
    // Once the replica has the author's position, the author reads there too.
    await until(async () => statements(await b.get(commentsUrl(), auth(author.token))).replica > 0, 'the author reads the replica again')
    const again = await b.get(commentsUrl(), auth(author.token))
    assert.ok(texts(again).includes(text))
  },
)

test(
  'an author reads their write through the other process on the replica when it keeps up; anonymous readers see it within the lag',
  { skip },
  async (t) => {
    if (missing) return t.skip(missing)
    const text = `On the replica ${randomBytes(3).toString('hex')}`
    const written = performance.now()
    await comment(text)
    const mine = await b.get(commentsUrl(), auth(author.token))
    assert.ok(texts(mine).includes(text), 'read-your-writes through the other process')
    const anonymousAfter = await until(
      async () => texts(await b.get(commentsUrl())).includes(text),
      'anonymous readers see the comment',
      MAX_LAG_MS,
    )
    console.error(
      `# author's read through B: ${JSON.stringify(statements(mine))}; anonymous readers saw the comment ${Math.round(performance.now() - written)} ms after the write (${Math.round(anonymousAfter)} ms of polling)`,
    )
    // Either side may serve the author; the replica does once it has caught up, which it does within milliseconds.
    await until(async () => {
      const response = await b.get(commentsUrl(), auth(author.token))
      return statements(response).replica > 0 && texts(response).includes(text)
    }, 'the author reads their comment from the replica')
  },
)

test('a first answer, one database call, counts as a write: its author reads it at once through the other process', { skip }, async (t) => {
  if (missing) return t.skip(missing)
  const voter = await newUser()
  await cluster.onReplica('select pg_wal_replay_pause()')
  try {
    const cast = await a.send('POST', '/api/question_votes/', { object_id: question, value: 4 }, voter.token)
    assert.equal(cast.statusCode, 201, cast.body)
    const mine = await b.get(`/api/question_votes/?question=${question}&user=${voter.id}`, auth(voter.token))
    assert.equal(mine.statusCode, 200)
    assert.deepEqual(
      mine.json().results.map((vote: { id: number }) => vote.id),
      [cast.json().id],
      'the author sees their answer through the other process',
    )
    assert.equal(statements(mine).replica, 0, 'the replica has not replayed it: the read waits, then goes to the primary')
  } finally {
    await cluster.onReplica('select pg_wal_replay_resume()')
  }
})

test(
  'a replica paused past REPLICA_MAX_LAG_MS is skipped: reads go to the primary without an error, and it comes back',
  { skip },
  async (t) => {
    if (missing) return t.skip(missing)
    await cluster.onReplica('select pg_wal_replay_pause()')
    const text = `While paused ${randomBytes(3).toString('hex')}`
    try {
      await comment(text)
      const lagging = await waitForState(b, 'lagging')
      const ready = await readiness(b)
      assert.equal(ready.code, 200, 'ready while the primary answers')
      assert.equal(ready.body.status, 'ok')
      assert.equal(ready.body.databases.primary, 'ok')
      assert.ok(ready.body.databases.replicas[0].lag_ms >= MAX_LAG_MS)
      assert.doesNotMatch(JSON.stringify(ready.body), /postgres:\/\//, 'host and port only')
      console.error(`# replica reported lagging ${Math.round(lagging)} ms after the write (REPLICA_MAX_LAG_MS ${MAX_LAG_MS})`)
      const anonymous = await b.get(commentsUrl())
      assert.equal(anonymous.statusCode, 200)
      assert.ok(texts(anonymous).includes(text), 'the primary serves the read')
      assert.deepEqual(statements(anonymous).replica, 0)
    } finally {
      await cluster.onReplica('select pg_wal_replay_resume()')
    }
    await waitForState(b, 'ok')
    const back = await b.get(commentsUrl())
    assert.ok(statements(back).replica > 0, 'reads go to the replica again')
    assert.ok(texts(back).includes(text))
  },
)

test('a kept answer is never rebuilt from a replica behind the change notice', { skip }, async (t) => {
  if (missing) return t.skip(missing)
  const c = await replicatedApp({ RESPONSE_CACHE_MB: '16', RESPONSE_CACHE_MAX_AGE_MS: '600000', RESPONSE_CACHE_GRACE_MS: '0' })
  await waitForState(c, 'ok')
  const detail = `/api/questions/${question}/`
  await until(async () => (await c.get(detail)).headers['x-cache'] === 'HIT', 'the detail is kept')
  const before = (await c.get(detail)).json().direct_vote_count as number
  const voter = await newUser()
  await cluster.onReplica('select pg_wal_replay_pause()')
  try {
    const written = performance.now()
    const vote = await a.send('POST', '/api/question_votes/', { value: 4, object_id: question, private: false }, voter.token)
    assert.equal(vote.statusCode, 201, vote.body)
    // The notice reaches C at once; the replica has not replayed the vote. The kept answer is dropped only once the
    // replica has the vote or is skipped, so what C keeps next shows the vote, without waiting out the 600 s.
    await until(async () => (await c.get(detail)).json().direct_vote_count === before + 1, 'the kept detail shows the vote', 3 * MAX_LAG_MS)
    console.error(`# kept detail showed the vote ${Math.round(performance.now() - written)} ms after it, replay paused throughout`)
    const [paused] = await cluster.onReplica<{ paused: boolean }>('select pg_is_wal_replay_paused() as paused')
    assert.equal(paused!.paused, true, 'the replica never had the vote')
    for (let i = 0; i < 5; i++) assert.equal((await c.get(detail)).json().direct_vote_count, before + 1, 'and it stays')
  } finally {
    await cluster.onReplica('select pg_wal_replay_resume()')
  }
})

test('a stopped replica sends reads to the primary with no error, and takes them again once restarted', { skip }, async (t) => {
  if (missing) return t.skip(missing)
  const text = `Replica down ${randomBytes(3).toString('hex')}`
  await comment(text)
  cluster.stopReplica()
  try {
    for (let i = 0; i < 5; i++) {
      const anonymous = await b.get(commentsUrl())
      assert.equal(anonymous.statusCode, 200, anonymous.body)
      assert.ok(texts(anonymous).includes(text))
      const mine = await b.get(commentsUrl(), auth(author.token))
      assert.equal(mine.statusCode, 200, mine.body)
    }
    await waitForState(b, 'down')
    const ready = await readiness(b)
    assert.equal(ready.code, 200, 'ready: the primary answers')
    assert.deepEqual(ready.body.databases.replicas[0].state, 'down')
    assert.equal(ready.body.databases.replicas[0].lag_ms, null)
    assert.equal(statements(await b.get(commentsUrl())).replica, 0)
  } finally {
    cluster.startReplica()
  }
  const back = await waitForState(b, 'ok')
  console.error(`# restarted replica back in use after ${Math.round(back)} ms`)
  await until(async () => statements(await b.get(commentsUrl())).replica > 0, 'reads go to the replica again')
})

test(
  'a statement calling a VOLATILE function goes to the primary as a write; a function that writes under a read-only mark is caught by the replica',
  { skip },
  async (t) => {
    if (missing) return t.skip(missing)
    // Made after the migrations, as another migration would: the router reads the marks, it keeps no list.
    await cluster.onPrimary(`CREATE FUNCTION routing_probe_write(p text) RETURNS integer LANGUAGE sql
    AS $$ INSERT INTO service_secrets (name, value) VALUES (p, 'x') RETURNING 1 $$`)
    await cluster.onPrimary(`CREATE FUNCTION routing_probe_hidden(p text) RETURNS integer LANGUAGE plpgsql STABLE
    AS $$ BEGIN PERFORM routing_probe_write(p); RETURN 1; END $$`)
    await cluster.onPrimary(`CREATE FUNCTION routing_probe_read(p text) RETURNS bigint LANGUAGE sql STABLE
    AS $$ SELECT count(*) FROM service_secrets WHERE name = p $$`)
    await until(
      async () => (await cluster.onReplica(`select to_regproc('routing_probe_read') is not null as made`))[0]!.made === true,
      'the replica has the functions',
    )
    const handle = await replicatedDatabase()
    try {
      const router = readRouterOf(handle.db)!
      await until(async () => router.status()[0]!.state === 'ok', 'the replica is in use')
      const inGet = async (statement: string) => {
        const context = { ...newReadContext(), identified: true, readOnly: true }
        await readRouting.run(context, () => sql.raw(statement).execute(handle.db))
        return { primary: context.primaryStatements, replica: context.replicaStatements, wrote: context.wrote }
      }
      const name = `routing probe ${randomBytes(3).toString('hex')}`
      assert.deepEqual(await inGet(`SELECT routing_probe_read('${name}')`), { primary: 0, replica: 1, wrote: false })
      assert.deepEqual(await inGet(`SELECT * FROM routing_probe_write('${name}')`), { primary: 1, replica: 0, wrote: true })
      // Sent to the replica, refused there as a write (25006), run on the primary and recorded as the request's write.
      assert.deepEqual(await inGet(`SELECT routing_probe_hidden('${name} hidden')`), { primary: 1, replica: 0, wrote: true })
      const written = await cluster.onPrimary(`select name from service_secrets where name like $1 order by name`, [`${name}%`])
      assert.deepEqual(
        written.map((row) => row.name),
        [name, `${name} hidden`],
      )
    } finally {
      await handle.close()
      await cluster.onPrimary('DROP FUNCTION routing_probe_read, routing_probe_hidden, routing_probe_write')
      await cluster.onPrimary(`DELETE FROM service_secrets WHERE name LIKE 'routing probe %'`)
    }
  },
)
