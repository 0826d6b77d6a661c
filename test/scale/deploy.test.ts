import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { clusterSkipReason } from '../helpers/postgres-cluster.ts'
import { freePorts } from '../helpers/free-port.ts'
import { jsonClient } from '../helpers/json-client.ts'
import { until } from '../reliability/support.ts'

/**
 * The reference deployment (deploy/, docs/operations.md): `deploy/start` brings up a primary, a streaming replica,
 * PgBouncer, two `serve` processes and HAProxy, on free ports, in a state directory of the test's own; every
 * request below goes through HAProxy. `deploy/stop --purge` ends it all and frees every port.
 */

const haproxyMissing = spawnSync('haproxy', ['-v']).status !== 0
const skip: string | false =
  clusterSkipReason({ pooler: true }) ||
  (haproxyMissing && process.env.REQUIRE_REPLICA !== '1' ? 'needs haproxy (REQUIRE_REPLICA=1 makes this a failure)' : false)

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
let state: string
let env: NodeJS.ProcessEnv
let api: string
let stats: string
let ports: number[]

/** Whether something accepts connections on host:port. */
async function listening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host)
    socket.once('connect', () => (socket.destroy(), resolve(true)))
    socket.once('error', () => resolve(false))
  })
}

const redisReachable = () => {
  const { hostname, port } = new URL(REDIS_URL)
  return listening(Number(port || 6379), hostname)
}

const deploy = (script: 'start' | 'stop', args: string[] = []) =>
  spawnSync(path.resolve('deploy', script), args, { env, encoding: 'utf8', timeout: 300_000 })

before(async () => {
  if (skip) return
  state = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-deploy-'))
  // The PostgreSQL OS user reaches its files through this directory.
  fs.chmodSync(state, 0o755)
  // Ports the kernel hands to bind() (odd ones), none two in a row: connect() takes even ports for its outgoing
  // connections, and one of the suite's could hold the second of two consecutive ports by the time it is bound.
  ports = await freePorts(7)
  const [primary, replica, bouncer, http, statsPort] = ports.map(String)
  const serves = ports.slice(5)
  // Without Redis a process knows only its own callers' writes: then the processes read the primary only.
  const redis = await redisReachable()
  env = {
    ...process.env,
    DEPLOY_STATE_DIR: state,
    DEPLOY_PRIMARY_PORT: primary,
    DEPLOY_REPLICA_PORT: replica,
    DEPLOY_PGBOUNCER_PORT: bouncer,
    DEPLOY_HTTP_PORT: http,
    DEPLOY_STATS_PORT: statsPort,
    DEPLOY_SERVE_PORTS: serves.join(' '),
    DEPLOY_SEED: 'tiny',
    DEPLOY_REPLICA_READS: redis ? 'on' : 'off',
    ...(redis ? { REDIS_URL, REDIS_PREFIX: `civic-deploy-test-${process.pid}:` } : {}),
    LOG_LEVEL: 'warn',
    // The test's requests, not abuse: the default limits would slow its sign-up.
    RATE_LIMIT_SIGN_UP: '1000',
    RATE_LIMIT_SENSITIVE: '1000',
    // The rolling restart's steady load reads and answers from one address.
    RATE_LIMIT_ANONYMOUS: '100000',
    RATE_LIMIT_IP: '100000',
    RATE_LIMIT_USER: '100000',
  }
  for (const name of ['DATABASE_URL', 'DATABASE_DIRECT_URL', 'DATABASE_REPLICA_URLS', 'DATA_DIR', 'PORT', 'HOST']) delete env[name]
  api = `http://127.0.0.1:${http}`
  stats = `http://127.0.0.1:${statsPort}`
  const started = performance.now()
  const result = deploy('start')
  assert.equal(result.status, 0, `deploy/start failed:\n${result.stderr}\n${result.stdout}`)
  assert.match(result.stdout, new RegExp(`API +${api}/api/`))
  console.error(`# deploy/start ready in ${Math.round(performance.now() - started)} ms (replica reads ${env.DEPLOY_REPLICA_READS})`)
})

after(() => {
  if (skip || !state) return
  deploy('stop', ['--purge'])
  fs.rmSync(state, { recursive: true, force: true })
})

const call = (method: string, path: string, body?: unknown, token?: string) => jsonClient(api)(method, path, body, token)

/** Sessions HAProxy sent to each serve process so far, from its stats page (CSV). */
async function sessionsPerProcess(): Promise<Record<string, number>> {
  const csv = await (await fetch(`${stats}/;csv`)).text()
  const [header, ...rows] = csv.trim().split('\n')
  const columns = header.replace(/^# /, '').split(',')
  const [proxy, name, total] = ['pxname', 'svname', 'stot'].map((column) => columns.indexOf(column))
  return Object.fromEntries(
    rows
      .map((row) => row.split(','))
      .filter((cells) => cells[proxy] === 'serve' && cells[name].startsWith('serve-'))
      .map((cells) => [cells[name], Number(cells[total])]),
  )
}

test('deploy/start serves the API through HAProxy, two processes, PgBouncer and a replica', { skip, timeout: 300_000 }, async () => {
  const ready = await call('GET', '/readyz')
  assert.equal(ready.status, 200, JSON.stringify(ready.json))
  assert.equal(ready.json.status, 'ok')
  if (env.DEPLOY_REPLICA_READS === 'on') {
    assert.equal(ready.json.databases.primary, 'ok')
    assert.equal(ready.json.databases.replicas.length, 1)
  }
  const root = await call('GET', '/api/')
  assert.equal(root.status, 200)
  assert.ok(root.json.questions?.startsWith(`${api}/api/questions/`), `the root names the proxy's address: ${JSON.stringify(root.json)}`)

  // A new person asks and answers; every read after a write, whichever process and database serve it, sees it.
  const username = `deployed${randomBytes(4).toString('hex')}`
  const registered = await call('POST', '/auth/register/', { username, email: `${username}@example.org`, password: 'harbour-lantern-77' })
  assert.equal(registered.status, 201, JSON.stringify(registered.json))
  const token = registered.json.auth_token as string
  const asked = await call('POST', '/api/questions/', { question: 'Should the ferry run on Sundays?' }, token)
  assert.equal(asked.status, 201, JSON.stringify(asked.json))
  const question = asked.json.id as number
  const vote = await call('POST', '/api/question_votes/', { value: 5, object_id: question, private: false }, token)
  assert.equal(vote.status, 201, JSON.stringify(vote.json))
  for (let i = 0; i < 8; i++) {
    const mine = await call('GET', `/api/question_votes/?question=${question}`, undefined, token)
    assert.equal(mine.status, 200)
    assert.deepEqual(
      mine.json.results.map((v: { id: number; value: number }) => [v.id, v.value]),
      [[vote.json.id, 5]],
      `read ${i + 1} after the vote`,
    )
  }
  // Anyone else sees it within the replica's lag.
  await until(
    async () => (await call('GET', `/api/questions/${question}/`)).json.direct_vote_count === 1,
    'an anonymous reader sees the vote',
    10_000,
  )
  const sessions = await sessionsPerProcess()
  assert.deepEqual(Object.keys(sessions).sort(), ['serve-1', 'serve-2'])
  assert.ok(
    Object.values(sessions).every((count) => count > 0),
    `HAProxy sent requests to both processes: ${JSON.stringify(sessions)}`,
  )

  // One process stops: HAProxy sends every request to the other, with no error.
  const pid = Number(fs.readFileSync(path.join(state, 'run', 'serve-1.pid'), 'utf8').trim())
  process.kill(pid, 'SIGTERM')
  await until(() => !isAlive(pid), 'serve-1 stops', 20_000)
  const statuses = await Promise.all(Array.from({ length: 12 }, () => call('GET', `/api/questions/${question}/`).then((r) => r.status)))
  assert.deepEqual(statuses, Array(12).fill(200))
})

/** deploy/restart, run without blocking the test's own requests; resolves with its status and output. */
function restartDeployment(): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(path.resolve('deploy', 'restart'), [], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.on('close', (status) => resolve({ status, output }))
  })
}

const servePid = (n: number) => Number(fs.readFileSync(path.join(state, 'run', `serve-${n}.pid`), 'utf8').trim())

test(
  'deploy/restart rolls every process behind HAProxy under load: no failed request, no lost answer, check clean',
  { skip, timeout: 400_000 },
  async () => {
    // The test above stopped serve-1: a restart starts it again, with the settings deploy/start gave it.
    const revived = await restartDeployment()
    assert.equal(revived.status, 0, revived.output)
    assert.ok(isAlive(servePid(1)) && isAlive(servePid(2)), revived.output)

    // Questions to answer, and people to answer them, made before the load.
    const people: { token: string }[] = []
    for (let i = 0; i < 4; i++) {
      const username = `roller${i}${randomBytes(3).toString('hex')}`
      const made = await call('POST', '/auth/register/', { username, email: `${username}@example.org`, password: 'harbour-lantern-77' })
      assert.equal(made.status, 201, JSON.stringify(made.json))
      people.push({ token: made.json.auth_token })
    }
    const questions: number[] = []
    for (let i = 0; i < 300; i++) {
      const asked = await call(
        'POST',
        '/api/questions/',
        { question: `Should the harbour light stay on after midnight, night ${i}?` },
        people[0].token,
      )
      assert.equal(asked.status, 201, JSON.stringify(asked.json))
      questions.push(asked.json.id)
    }

    // The steady load: each person answers the questions in turn; anonymous readers read a page and a question.
    const failures: string[] = []
    const answered: { question: number; value: number; id: number }[] = []
    let stopping = false
    const attempt = async (what: string, request: () => Promise<{ status: number; json: any }>, expected: number) => {
      try {
        const response = await request()
        if (response.status !== expected) failures.push(`${what}: ${response.status} ${JSON.stringify(response.json)}`)
        return response
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`)
        return null
      }
    }
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    const answerers = people.map(async ({ token }, p) => {
      for (const question of questions) {
        if (stopping) return
        const value = ((question + p) % 5) + 1
        const vote = await attempt(
          `answer ${question}`,
          () => call('POST', '/api/question_votes/', { value, object_id: question, private: false }, token),
          201,
        )
        if (vote) answered.push({ question, value, id: vote.json.id })
        await pause(200)
      }
    })
    const readers = [0, 1].map(async () => {
      while (!stopping) {
        await attempt('questions page', () => call('GET', '/api/questions/?page_size=10'), 200)
        await attempt('question', () => call('GET', `/api/questions/${questions[answered.length % questions.length]}/`), 200)
        await pause(50)
      }
    })

    await until(() => answered.length >= 8, 'answers arrive before the restart', 60_000)
    const before = [servePid(1), servePid(2)]
    const answersBefore = answered.length
    const rolled = await restartDeployment()
    const answersDuring = answered.length - answersBefore
    await pause(1000)
    stopping = true
    await Promise.all([...answerers, ...readers])

    assert.equal(rolled.status, 0, rolled.output)
    const after = [servePid(1), servePid(2)]
    assert.ok(
      after.every((pid, i) => pid !== before[i] && isAlive(pid)),
      `every process is new: ${before} -> ${after}`,
    )
    assert.ok(!before.some(isAlive), 'the old processes have ended')
    assert.deepEqual(failures, [], `no request failed during the restart (${answersDuring} answers during it)`)
    assert.ok(answersDuring > 10, `answers kept arriving during the restart: ${answersDuring}`)
    assert.ok(answered.length < people.length * questions.length, 'the load lasted the whole restart')

    // No lost answer, and none made twice: each question's public answers are exactly those acknowledged.
    const acknowledged = new Map<number, [number, number][]>()
    for (const { question, value, id } of answered) acknowledged.set(question, [...(acknowledged.get(question) ?? []), [id, value]])
    for (const [question, expected] of acknowledged) {
      const listed = await call('GET', `/api/question_votes/?question=${question}&page_size=100`)
      assert.equal(listed.status, 200)
      assert.deepEqual(
        listed.json.results.map((v: { id: number; value: number }) => [v.id, v.value]).sort(([a]: number[], [b]: number[]) => a - b),
        expected.sort(([a], [b]) => a - b),
        `the answers to question ${question}`,
      )
    }
    // Every figure equals a recomputation from the answers (check reads the primary directly).
    const password = fs.readFileSync(path.join(state, 'pg', 'password'), 'utf8').trim()
    const check = spawnSync('node', ['bin/civic-survey.js', 'check'], {
      env: { ...env, DATABASE_URL: `postgres://civic:${password}@127.0.0.1:${ports[0]}/civic`, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 120_000,
    })
    assert.equal(check.status, 0, `civic-survey check:\n${check.stdout}\n${check.stderr}`)
    console.error(`# rolling restart: ${answered.length} answers, ${answersDuring} during the restart, none failed`)
  },
)

test('deploy/stop --purge stops every part and frees every port', { skip, timeout: 120_000 }, async () => {
  const result = deploy('stop', ['--purge'])
  assert.equal(result.status, 0, result.stderr)
  assert.equal(fs.existsSync(path.join(state, 'pg')), false, 'the state directory is removed')
  for (const port of ports) assert.equal(await listening(port), false, `port ${port} is free`)
})

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
