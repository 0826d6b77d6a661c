import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import net from 'node:net'
import { CLI_SCRIPT } from '../helpers/cli/command.ts'
import { serverUrl } from '../helpers/databases.ts'
import { answer, answeringDatabase, listeningPorts, scrape, type Scrape } from '../helpers/metrics.ts'
import { cli, freePort, HIGH_LIMITS, serveUntilReady, until } from './support.ts'

/**
 * Metrics (docs/operations.md, Metrics): `serve` with METRICS_PORT answers /metrics on that port alone, and what it
 * counts is exactly what the requests through the public port caused.
 */

const portOf = (base: string) => Number(new URL(base).port)
/** Whether anything answers HTTP there. */
const answersAt = async (url: string) => (await fetch(url).catch(() => null)) !== null

test('METRICS_PORT: /metrics on its own port counts exactly the requests, answers and refusals made; none on the public port, and no metrics port without it', async () => {
  const VOTERS = 3
  const QUESTIONS = 4
  const fixture = await answeringDatabase(VOTERS, QUESTIONS)
  const { voters, likert, mcq, answered } = fixture
  assert.equal(voters.length, VOTERS)
  assert.equal(likert.length, QUESTIONS)
  const metricsPort = await freePort()
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
  let { server, base } = await serveUntilReady({ ...fixture.database.env, METRICS_PORT: String(metricsPort) })
  try {
    // Its own port, beside the public one; the public port has no /metrics.
    assert.deepEqual(
      listeningPorts(server.child.pid!),
      [portOf(base), metricsPort].sort((a, b) => a - b),
    )
    assert.equal((await fetch(`${base}/metrics`)).status, 404)
    const other = await fetch(`http://127.0.0.1:${metricsPort}/`)
    assert.equal(other.status, 404)
    await other.arrayBuffer()
    const post = await fetch(metricsUrl, { method: 'POST' })
    assert.equal(post.status, 405)
    await post.arrayBuffer()

    const before = await scrape(metricsUrl)
    assert.equal(before.contentType, 'text/plain; version=0.0.4; charset=utf-8')
    let made = 0

    // Answers: every voter answers every question, then the first two again (replacing their answer).
    let first = 0
    let replaced = 0
    const seen = new Set(answered)
    for (const round of [likert, likert.slice(0, 2)]) {
      for (const voter of voters) {
        for (const question of round) {
          const key = `${voter.id}:${question}`
          const status = await answer(base, question, 1 + ((voter.id + question) % 5), voter.token)
          made++
          assert.equal(status, seen.has(key) ? 200 : 201, key)
          if (seen.has(key)) replaced++
          else first++
          seen.add(key)
        }
      }
    }
    const answers = first + replaced
    assert.equal(answers, VOTERS * (QUESTIONS + 2))

    // A collection's opinion groups, asked for the first time: computed once, and timed.
    const groups = await fetch(`${base}/api/opinion_groups/?collection=${fixture.collection}`)
    made++
    assert.equal(groups.status, 200, await groups.text())

    // Refusals: a value out of range, no sign-in, a likert answer to a multiple-choice question, a question that is not there.
    const token = voters[0].token
    assert.equal(await answer(base, likert[0], 9, token), 400)
    assert.equal(await answer(base, likert[0], 3), 403)
    assert.equal(await answer(base, mcq, 3, token), 400)
    assert.equal(await answer(base, 2_000_000_000, 3, token), 400)
    made += 4

    // Anonymous reads of an answer kept in memory (once change notices flow: the answers' came), until one is served
    // from memory: each is counted as its X-Cache says (HIT, MISS; without the header, answered without the cache).
    const cacheHeaders: string[] = []
    await until(async () => {
      const response = await fetch(`${base}/api/users/?page_size=1`)
      made++
      assert.equal(response.status, 200)
      cacheHeaders.push(response.headers.get('x-cache') ?? 'none')
      await response.arrayBuffer()
      return cacheHeaders.at(-1) === 'HIT'
    }, 'an anonymous read served from memory')

    // An answer is counted once it has been sent (onResponse): scrape until every request is there.
    let after: Scrape = before
    const delta = (name: string, labels: Record<string, string> = {}) => after.sum(name, labels) - before.sum(name, labels)
    await until(async () => {
      after = await scrape(metricsUrl)
      return delta('civic_http_requests_total') >= made
    }, `the metrics count ${made} requests`)

    // Requests by method, route pattern and status code: exactly those made, and their latencies as many.
    assert.equal(delta('civic_http_requests_total'), made)
    assert.equal(delta('civic_http_request_duration_seconds_count'), made)
    assert.equal(delta('civic_http_requests_total', { method: 'GET', route: '/api/users/', status_code: '200' }), cacheHeaders.length)
    assert.equal(delta('civic_http_requests_total', { method: 'POST', route: '/api/question_votes/', status_code: '201' }), first)
    assert.equal(delta('civic_http_requests_total', { method: 'POST', route: '/api/question_votes/', status_code: '200' }), replaced)
    assert.equal(delta('civic_http_requests_total', { method: 'POST', route: '/api/question_votes/', status_code: '400' }), 3)
    assert.equal(delta('civic_http_requests_total', { method: 'POST', route: '/api/question_votes/', status_code: '403' }), 1)
    assert.equal(
      delta('civic_http_request_duration_seconds_bucket', {
        method: 'POST',
        route: '/api/question_votes/',
        status_code: '201',
        le: '+Inf',
      }),
      first,
    )
    // The URL never becomes a label: one series per route pattern, and requests that matched none under one label.
    assert.ok(after.samples.every((s) => !s.labels.route?.includes('?') && !s.labels.route?.includes('2000000000')))
    assert.ok(
      after.has('civic_http_requests_total', { route: '(unmatched)', status_code: '404' }),
      'GET /metrics on the public port counted',
    )
    // Statements: one observation per request.
    assert.equal(delta('civic_http_request_db_statements_count'), made)

    // Answers recorded, by kind and outcome; refusals by reason.
    assert.equal(delta('civic_answers_total'), answers)
    assert.equal(delta('civic_answers_total', { kind: 'likert', outcome: 'first' }), first)
    assert.equal(delta('civic_answers_total', { kind: 'likert', outcome: 'replaced' }), replaced)
    assert.equal(delta('civic_answers_total', { kind: 'choice' }), 0)
    const refusals = Object.fromEntries(
      after
        .matching('civic_answer_refusals_total', { kind: 'likert' })
        .map((s) => [s.labels.reason, s.value - before.sum('civic_answer_refusals_total', s.labels)])
        .filter(([, n]) => n !== 0),
    )
    assert.deepEqual(refusals, { invalid: 1, unauthenticated: 1, mcq: 1, missing: 1 })
    // Every reason is there from the start, at 0.
    assert.equal(before.matching('civic_answer_refusals_total', { kind: 'likert' }).length, 12)

    // The opinion groups' recompute.
    assert.equal(delta('civic_opinion_group_recomputes_total', { result: 'computed' }), 1)
    assert.equal(delta('civic_opinion_group_recomputes_total'), 1)
    assert.equal(delta('civic_opinion_group_recompute_duration_seconds_count'), 1)
    assert.ok(delta('civic_opinion_group_recompute_duration_seconds_sum') > 0)

    // Kept answers: every anonymous read counted by what its X-Cache said.
    const headerCount = (value: string) => cacheHeaders.filter((h) => h === value).length
    assert.equal(delta('civic_response_cache_requests_total', { result: 'hit' }), headerCount('HIT'), `X-Cache: ${cacheHeaders}`)
    assert.equal(delta('civic_response_cache_requests_total', { result: 'miss' }), headerCount('MISS'), `X-Cache: ${cacheHeaders}`)
    assert.ok(delta('civic_response_cache_requests_total', { result: 'bypass' }) <= headerCount('none'))
    assert.ok(after.sum('civic_response_cache_entries') >= 1)
    assert.ok(after.sum('civic_response_cache_bytes') > 0)
    assert.ok(delta('civic_response_cache_invalidations_total') >= answers, 'each answer made the kept answers stale')

    // Sign-in tokens: one lookup in memory per request that carried one; each voter's first missed.
    const tokenRequests = answers + 3
    assert.equal(delta('civic_credentials_cache_lookups_total', { cache: 'token' }), tokenRequests)
    assert.ok(delta('civic_credentials_cache_lookups_total', { cache: 'token', result: 'miss' }) >= VOTERS)
    assert.ok(delta('civic_credentials_cache_lookups_total', { cache: 'token', result: 'hit' }) >= 1)
    assert.equal(after.sum('civic_credentials_cache_entries', { cache: 'token' }), VOTERS)
    assert.equal(delta('civic_credentials_cache_lookups_total', { cache: 'app_key' }), 0)

    // Pools: a PostgreSQL server's (in use, idle, waiting, limit); the embedded database has none.
    if (serverUrl()) {
      assert.ok(after.has('civic_db_pool_connections', { database: 'primary', state: 'in_use' }))
      assert.ok(after.sum('civic_db_pool_connections', { database: 'primary', state: 'idle' }) >= 1)
      assert.equal(after.sum('civic_db_pool_waiting_requests', { database: 'primary' }), 0)
      assert.equal(after.sum('civic_db_pool_max_connections', { database: 'primary' }), 10)
    } else {
      assert.ok(!after.has('civic_db_pool_connections'))
    }
    // No replicas configured: no replica series.
    assert.ok(
      !after.has('civic_db_replica_state') && !after.has('civic_db_replica_lag_seconds') && !after.has('civic_db_read_statements_total'),
    )

    // The process's own: memory, CPU, event-loop delay, under their standard names.
    assert.ok(after.sum('process_resident_memory_bytes') > 0)
    assert.ok(after.sum('nodejs_heap_size_used_bytes') > 0)
    assert.ok(after.has('process_cpu_seconds_total'))
    assert.ok(after.has('nodejs_eventloop_lag_p99_seconds'))
    assert.ok(after.has('nodejs_gc_duration_seconds_count') || after.has('nodejs_gc_duration_seconds_bucket'))

    // SIGTERM closes the metrics port with the rest.
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, server.output())
    assert.equal(await answersAt(metricsUrl), false, 'the metrics port is closed')

    // Without METRICS_PORT: the public port alone, still without /metrics.
    ;({ server, base } = await serveUntilReady(fixture.database.env))
    assert.deepEqual(listeningPorts(server.child.pid!), [portOf(base)])
    assert.equal((await fetch(`${base}/metrics`)).status, 404)
    server.child.kill('SIGTERM')
    assert.equal(await server.exited, 0, server.output())
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL')
    await server.exited
    await fixture.database.cleanup()
  }
})

test('METRICS_PORT must differ from PORT', async () => {
  const result = cli(['serve'], { PORT: '18765', METRICS_PORT: '18765', DATABASE_URL: '' })
  assert.equal(result.code, 2)
  assert.equal(
    result.stderr.trim(),
    "configuration error: METRICS_PORT: must differ from PORT (18765): metrics are never served on the API's port",
  )
  const bad = cli(['serve'], { METRICS_PORT: 'nine' })
  assert.equal(bad.code, 2)
  assert.equal(bad.stderr.trim(), 'configuration error: METRICS_PORT: expected a whole number, got "nine"')
})

test(
  'serve --workers 2: each worker serves its own metrics on METRICS_PORT + its place, which add up to the requests made',
  { skip: serverUrl() ? false : 'PostgreSQL only: workers share a database server' },
  async () => {
    const fixture = await answeringDatabase(1, 1)
    const port = await freePort()
    // Two consecutive free ports for the two workers' metrics.
    let metricsPort = await freePort()
    while (!(await freePortAt(metricsPort + 1))) metricsPort = await freePort()
    const child = spawn(process.execPath, [CLI_SCRIPT, 'serve', '--workers', '2'], {
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        ...fixture.database.env,
        ...HIGH_LIMITS,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout!.on('data', (chunk) => (output += chunk))
    child.stderr!.on('data', (chunk) => (output += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const base = `http://127.0.0.1:${port}`
    const urls = [0, 1].map((slot) => `http://127.0.0.1:${metricsPort + slot}/metrics`)
    try {
      await until(
        async () => (await fetch(`${base}/api/questions/?page_size=1`).catch(() => null))?.status === 200,
        `workers answer\n${output}`,
        60_000,
      )
      await until(async () => (await Promise.all(urls.map(answersAt))).every(Boolean), `both workers' metrics answer\n${output}`, 60_000)
      const before = await Promise.all(urls.map(scrape))
      const total = (scrapes: Scrape[]) => scrapes.reduce((n, s) => n + s.sum('civic_http_requests_total', { route: '/api/tags/' }), 0)
      const REQUESTS = 20
      // Each on a connection of its own, so the cluster hands them to either worker.
      for (let i = 0; i < REQUESTS; i++) {
        const response = await fetch(`${base}/api/tags/?page_size=1`, { headers: { connection: 'close' } })
        assert.equal(response.status, 200)
        await response.arrayBuffer()
      }
      let after = before
      await until(async () => {
        after = await Promise.all(urls.map(scrape))
        return total(after) - total(before) >= REQUESTS
      }, 'the workers count every request')
      assert.equal(total(after) - total(before), REQUESTS)
      // The cluster hands connections round robin: both workers served some, each counting its own.
      const served = [0, 1].map((slot) => total([after[slot]]) - total([before[slot]]))
      assert.ok(
        served.every((n) => n > 0),
        `each worker counted its own requests: ${served}`,
      )
      child.kill('SIGTERM')
      assert.equal(await exited, 0, output)
      for (const url of urls) assert.equal(await answersAt(url), false, `${url} closed`)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
      await exited
      await fixture.database.cleanup()
    }
  },
)

/** Whether nothing listens on the port now. */
async function freePortAt(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}
