import { spawn } from 'node:child_process'
import os from 'node:os'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { freePort } from '../../test/helpers/free-port.ts'
import { benchServer, ensureBuilt } from '../shared.ts'

/**
 * npm run bench -- startup [--seed demo|large] [--runs N]
 * Start to ready: `civic-survey serve`, the compiled code (built first when dist/ is older than src/), from its
 * spawn to the first 200 of /readyz, on a copy of the seeded bench database (civic_bench_demo or
 * civic_bench_population, made by `npm run bench -- load`), N times; prints each run and the median.
 */
export async function runStartupBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { seed: { type: 'string', default: 'demo' }, runs: { type: 'string', default: '5' } },
  })
  const seeded = values.seed === 'large' ? 'civic_bench_population' : values.seed === 'demo' ? 'civic_bench_demo' : null
  if (!seeded) throw new Error('--seed must be demo or large')
  const runs = Number(values.runs)
  const server = benchServer()
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [seeded])).rowCount !== 1)
    throw new Error(`${seeded} is missing: npm run bench -- load --seed ${values.seed} seeds it`)
  ensureBuilt()
  const copy = `civic_bench_startup_${process.pid}`
  await admin.query(`CREATE DATABASE ${copy} TEMPLATE ${seeded}`)
  const url = new URL(server)
  url.pathname = `/${copy}`
  const times: number[] = []
  try {
    for (let run = 0; run < runs; run++) {
      const port = await freePort()
      const started = performance.now()
      const child = spawn(process.execPath, ['bin/civic-survey.js', 'serve'], {
        env: { ...process.env, DATABASE_URL: url.toString(), PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production' },
        stdio: 'ignore',
      })
      for (;;) {
        if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}`)
        const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (response) => response.status,
          () => 0,
        )
        if (status === 200) break
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      times.push(Math.round(performance.now() - started))
      const exited = new Promise((resolve) => child.on('exit', resolve))
      child.kill('SIGTERM')
      await exited
      console.error(`run ${run + 1}: ${times.at(-1)} ms`)
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${copy} WITH (FORCE)`)
    await admin.end()
  }
  const sorted = [...times].sort((a, b) => a - b)
  const median = sorted[Math.floor(sorted.length / 2)]
  const load = os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(', ')
  console.log(JSON.stringify({ seed: values.seed, runs: times, median_ms: median, load_average: load }))
}
