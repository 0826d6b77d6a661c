import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { answer, answeringDatabase, PROMETHEUS, prometheusSkip, scrape } from '../helpers/metrics.ts'
import { startPrometheus, type PrometheusServer } from '../helpers/prometheus-server.ts'
import { freePort, serveUntilReady, until } from './support.ts'

/**
 * A real Prometheus server scrapes `serve` every second while answers arrive; what it stores is what the service
 * counted: the answers read back through Prometheus's query API are the answers sent.
 */

const JOB = 'civic'
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test(
  'Prometheus scrapes METRICS_PORT while answers arrive, and reads back exactly the answers sent',
  { skip: prometheusSkip() },
  async () => {
    assert.ok(fs.existsSync(PROMETHEUS), `REQUIRE_PROMETHEUS=1, and no Prometheus at ${PROMETHEUS}`)
    const VOTERS = 3
    const ROUNDS = 6
    const fixture = await answeringDatabase(VOTERS, ROUNDS)
    assert.equal(fixture.voters.length, VOTERS)
    assert.equal(fixture.likert.length, ROUNDS)
    const metricsPort = await freePort()
    const { server, base } = await serveUntilReady({ ...fixture.database.env, METRICS_PORT: String(metricsPort) })
    let prometheus: PrometheusServer | null = null
    try {
      prometheus = await startPrometheus(JOB, [`127.0.0.1:${metricsPort}`])
      const p = prometheus
      // A first scrape before any answer: Prometheus holds the counters at 0.
      await until(async () => (await p.target(JOB))?.health === 'up', `Prometheus scrapes the service\n${p.output()}`, 60_000)
      let zero: { value: number }[] = []
      await until(async () => (zero = await p.query(`sum(civic_answers_total{job="${JOB}"})`)).length > 0, 'the first scrape stored')
      assert.equal(zero[0].value, 0)

      // Answers arrive over a few seconds, a round at a time, while Prometheus scrapes every second.
      let sent = 0
      for (let round = 0; round < ROUNDS; round++) {
        const statuses = await Promise.all(
          fixture.voters.map((voter) => answer(base, fixture.likert[round], 1 + ((voter.id + round) % 5), voter.token)),
        )
        for (const status of statuses) assert.ok(status === 200 || status === 201, `an answer was taken: ${status}`)
        sent += statuses.length
        await sleep(300)
      }
      const ended = Date.now() / 1000
      // The service's own count, read directly.
      await until(
        async () => (await scrape(`http://127.0.0.1:${metricsPort}/metrics`)).sum('civic_answers_total') === sent,
        'the service counts every answer',
      )

      // Once a scrape has started after the last answer, Prometheus's latest value is the count at the end.
      await until(async () => ((await p.target(JOB))?.lastScrape ?? 0) > ended, 'a scrape after the last answer', 30_000)
      let read = NaN
      await until(async () => {
        read = (await p.query(`sum(civic_answers_total{job="${JOB}"})`))[0]?.value ?? NaN
        return read >= sent
      }, `Prometheus reads ${sent} answers (last read ${read})`)
      assert.equal(read, sent)
      assert.deepEqual((await p.query(`sum by (kind) (civic_answers_total{job="${JOB}"})`)).map((r) => [r.metric.kind, r.value]).sort(), [
        ['choice', 0],
        ['likert', sent],
      ])
      // Every answer was a POST to the route pattern, counted under it by status code.
      const posts = await p.query(`sum(civic_http_requests_total{job="${JOB}",method="POST",route="/api/question_votes/"})`)
      assert.equal(posts[0]?.value, sent)
      // Answers per second, as an alert would compute them: the window holds the 0 before and the count after.
      const [rate] = await p.query(`sum(rate(civic_answers_total{job="${JOB}"}[1m]))`)
      assert.ok(rate && rate.value > 0, `rate() of answers: ${JSON.stringify(rate)}`)
      // No refusal among them; the process's own metrics came along.
      assert.equal((await p.query(`sum(civic_answer_refusals_total{job="${JOB}"})`))[0]?.value, 0)
      assert.equal((await p.query(`up{job="${JOB}"}`))[0]?.value, 1)
      assert.equal((await p.query(`count(process_resident_memory_bytes{job="${JOB}"})`))[0]?.value, 1)
    } finally {
      await prometheus?.stop()
      if (server.child.exitCode === null) server.child.kill('SIGTERM')
      const killer = setTimeout(() => server.child.kill('SIGKILL'), 15_000)
      await server.exited
      clearTimeout(killer)
      await fixture.database.cleanup()
    }
  },
)
