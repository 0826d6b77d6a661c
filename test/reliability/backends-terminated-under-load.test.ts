import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import pg from 'pg'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { serverUrl } from '../helpers/databases.ts'
import { runCommand } from '../cli/run-command.ts'
import { freePort, freshDatabase, onServer, serve, terminateBackends, until, type ServeProcess } from './support.ts'

/**
 * The fault test: a real server process under a steady stream of reads and votes while every backend of its database
 * is terminated, several times, and then while the database refuses connections for a while. The process must keep
 * answering (200, or 503 with Retry-After and a detail), answer 200 once the database is back, and leave every stored
 * figure equal to a recomputation.
 */
const skip = serverUrl() ? false : 'PostgreSQL only: terminating backends needs a server'

interface Answer {
  status: number | 'no answer'
  retryAfter: string | null
  body: string
}

let fresh: Awaited<ReturnType<typeof freshDatabase>>
let server: ServeProcess
let base: string

before(async () => {
  if (skip) return
  fresh = await freshDatabase()
  const port = await freePort()
  base = `http://127.0.0.1:${port}`
  server = serve({ DATABASE_URL: fresh.url, PORT: String(port), DB_CONNECT_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '5000' })
  await until(
    async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200,
    `the server answers on ${base}\n${server.output()}`,
  )
})

after(async () => {
  if (skip) return
  if (server.child.exitCode === null) {
    server.child.kill('SIGTERM')
    await server.exited
  }
  await fresh.drop()
})

async function call(method: string, path: string, token?: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Token ${token}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  try {
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() }
  } catch (error) {
    return { status: 'no answer', retryAfter: null, body: String(error) }
  }
}

/** Voters with tokens, and likert questions every one of them may answer. */
async function votersAndQuestions(count: number): Promise<{ tokens: string[]; questions: number[] }> {
  const client = new pg.Client({ connectionString: fresh.url })
  await client.connect()
  try {
    const users = await client.query<{ id: number }>('select id from users where is_active and not is_deleted order by id limit $1', [
      count,
    ])
    const tokens: string[] = []
    for (const { id } of users.rows) {
      const token = newToken()
      await client.query(`insert into auth_tokens (user_id, key_hash, name) values ($1, $2, 'fault test')`, [id, hashSecret(token)])
      tokens.push(token)
    }
    const candidates = await client.query<{ id: number }>(`select id from questions where subtype = 'likert' order by id limit 40`)
    const questions: number[] = []
    for (const { id } of candidates.rows) {
      const votes = await Promise.all(tokens.map((token) => call('POST', '/api/question_votes/', token, { object_id: id, value: 3 })))
      if (votes.every((vote) => vote.status === 200 || vote.status === 201)) questions.push(id)
      if (questions.length === 5) break
    }
    return { tokens, questions }
  } finally {
    await client.end()
  }
}

const WORKERS = 6

test(
  'every backend terminated under load, then the database refusing connections: 200 or 503 during, 200 after, figures exact',
  { skip },
  async (t) => {
    const { tokens, questions } = await votersAndQuestions(WORKERS)
    assert.equal(tokens.length, WORKERS)
    assert.ok(questions.length >= 2, `likert questions open to answers: ${questions}`)

    const answers: Array<Answer & { what: string }> = []
    let running = true
    const worker = async (index: number) => {
      for (let round = 0; running; round++) {
        const question = questions[(index + round) % questions.length]
        const steps: Array<[string, string, string | undefined, unknown]> = [
          ['GET', '/api/questions/?page_size=5', undefined, undefined],
          ['POST', '/api/question_votes/', tokens[index], { object_id: question, value: 1 + ((index + round) % 5) }],
          ['GET', `/api/questions/${question}/`, tokens[index], undefined],
          ['GET', '/api/tags/', undefined, undefined],
        ]
        for (const [method, path, token, body] of steps)
          answers.push({ what: `${method} ${path}`, ...(await call(method, path, token, body)) })
      }
    }
    const workers = Array.from({ length: WORKERS }, (_, index) => worker(index))
    const alive = () => assert.equal(server.child.exitCode, null, `the server process ended:\n${server.output().slice(-3000)}`)
    const progress = async (count: number, what: string) => {
      const target = answers.length + count
      await until(() => (alive(), answers.length >= target), what)
    }

    await progress(WORKERS * 4, 'the load runs')
    let terminated = 0
    for (let round = 1; round <= 4; round++) {
      terminated += await terminateBackends(fresh.name)
      await progress(WORKERS * 2, `answers after termination round ${round}`)
    }

    // An outage long enough to be seen: new connections are refused until the database accepts them again.
    await onServer((client) => client.query(`alter database ${fresh.name} allow_connections false`))
    try {
      await terminateBackends(fresh.name)
      const refusedBefore = answers.filter((answer) => answer.status === 503).length
      await until(
        () => (alive(), answers.filter((answer) => answer.status === 503).length > refusedBefore),
        'requests answer 503 while the database refuses',
      )
      const ready = await call('GET', '/readyz')
      assert.equal(ready.status, 503, ready.body)
      assert.equal((await call('GET', '/healthz')).status, 200)
    } finally {
      await onServer((client) => client.query(`alter database ${fresh.name} allow_connections true`))
    }
    await until(async () => (await call('GET', '/readyz')).status === 200, 'ready again once the database accepts connections')
    await progress(WORKERS * 4, 'the load runs on after the outage')
    running = false
    await Promise.all(workers)
    const tally = new Map<string, number>()
    for (const answer of answers) tally.set(String(answer.status), (tally.get(String(answer.status)) ?? 0) + 1)
    t.diagnostic(
      `${terminated} backends terminated in 4 rounds; ${answers.length} answers: ${[...tally].map(([status, n]) => `${n} × ${status}`).join(', ')}`,
    )

    const unexpected = answers.filter((answer) => {
      if (answer.status === 200 || answer.status === 201) return false
      if (answer.status !== 503 || answer.retryAfter === null) return true
      return typeof JSON.parse(answer.body).detail !== 'string'
    })
    assert.deepEqual(unexpected.slice(0, 5), [], `${unexpected.length} of ${answers.length} answers were neither 200 nor a proper 503`)
    assert.ok(
      answers.some((answer) => answer.status === 503),
      'the outage was seen',
    )
    assert.equal(server.child.exitCode, null, 'the server process is still running')
    assert.match(server.output(), /database connection lost/, 'the log tells of the lost connections')

    // After: every kind of request answers 200 again.
    for (let i = 0; i < WORKERS; i++) {
      for (const answer of [
        await call('GET', '/api/questions/?page_size=5'),
        await call('POST', '/api/question_votes/', tokens[i], { object_id: questions[0], value: 2 }),
        await call('GET', `/api/questions/${questions[0]}/`, tokens[i]),
        await call('GET', '/api/tags/'),
      ]) {
        assert.ok(answer.status === 200 || answer.status === 201, `${answer.status} ${answer.body.slice(0, 200)}`)
      }
    }

    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, 'a clean stop')
    const check = await runCommand(['check'], { DATABASE_URL: fresh.url })
    assert.equal(check.code, 0, check.stdout + check.stderr)
    assert.match(check.stderr, /every stored figure equals a recomputation/)
  },
)
