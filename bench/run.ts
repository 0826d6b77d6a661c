import { spawnSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import fs from 'node:fs'
import pg from 'pg'
import { connectDatabase } from '../src/db/connect.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { LIQUID_SCALES } from './liquid/generate.ts'
import { benchLiquid } from './liquid/liquid.bench.ts'

/** `npm run bench -- <suite> [options]`: the suites with their own options; without one, the liquid suite. */
const SUITES: Record<string, () => Promise<(argv: string[]) => Promise<void>>> = {
  'next-question': async () => (await import('./next-question/next-question.bench.ts')).runNextQuestionBench,
  population: async () => (await import('./population/population.bench.ts')).runPopulationBench,
  import: async () => (await import('./import/import.bench.ts')).runImportBench,
  compare: async () => (await import('./compare/compare.bench.ts')).runCompareBench,
  load: async () => (await import('./load/load.bench.ts')).runLoadBench,
  live: async () => (await import('./live/live.bench.ts')).runLiveBench,
  'groups-http': async () => (await import('./opinion-groups/groups-http.bench.ts')).runGroupsHttpBench,
  'groups-read': async () => (await import('./opinion-groups/groups-read.bench.ts')).runGroupsReadBench,
  scale: async () => (await import('./scale/scale.bench.ts')).runScaleBench,
  startup: async () => (await import('./startup/startup.bench.ts')).runStartupBench,
  // The engine alone, each scale in a process of its own so that its peak memory is its own.
  groups: async () => async (argv) => {
    const run = spawnSync(process.execPath, [...process.execArgv, 'bench/opinion-groups-engine.ts', ...argv], { stdio: 'inherit' })
    if (run.status !== 0) throw new Error(`the opinion-groups bench ended with status ${run.status}`)
  },
}
const suite = SUITES[process.argv[2]]
if (suite) {
  await (
    await suite()
  )(process.argv.slice(3))
  process.exit(0)
}

/**
 * npm run bench -- [--scale tiny|small|full] [--reuse] [--changes-only] [--samples N]
 * Runs against a PostgreSQL server (BENCH_DATABASE_URL, else DATABASE_URL, else the local one) in a
 * database of its own per scale; --reuse keeps an already generated one (migrated to the latest schema),
 * --changes-only skips the full recomputations. Prints the report as JSON and writes it under bench/results/.
 */
const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'small' },
    reuse: { type: 'boolean', default: false },
    samples: { type: 'string', default: '100' },
    'changes-only': { type: 'boolean', default: false },
  },
})
const scale = LIQUID_SCALES[values.scale!]
if (!scale) throw new Error(`--scale must be one of ${Object.keys(LIQUID_SCALES).join(', ')}`)
const server = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = `civic_bench_liquid_${values.scale}`
const admin = new pg.Client({ connectionString: server })
await admin.connect()
const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1
const generate = !(values.reuse && exists)
if (generate) {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin.query(`CREATE DATABASE ${name}`)
}
await admin.end()
const url = new URL(server)
url.pathname = `/${name}`
const handle = await connectDatabase({ databaseUrl: url.toString(), dataDir: '', poolSize: 4 })
try {
  await migrateToLatest(handle.db)
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    ...(await benchLiquid(handle.db, scale, generate, Number(values.samples), values['changes-only'])),
  }
  fs.mkdirSync('bench/results', { recursive: true })
  const file = `bench/results/liquid-${values.scale}-${report.date.slice(0, 10)}.json`
  fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
  console.log(JSON.stringify(report, null, 2))
  console.error(`written to ${file}`)
} finally {
  await handle.close()
}
