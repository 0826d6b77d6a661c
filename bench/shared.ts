import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import { sql } from 'kysely'
import pg from 'pg'
import { connectDatabase, type DatabaseHandle } from '../src/db/connect.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { seedDatabase } from '../src/seed/seed.ts'

/** What the bench scenarios share: percentiles, rounding, their own databases and round-robin sampling. */

export const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

export const round = (value: number, digits = 3): number => Math.round(value * 10 ** digits) / 10 ** digits

/** The PostgreSQL server the benchmarks run against. */
export const benchServer = (): string =>
  process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/**
 * A database of the benchmark's own on the server: made anew when `fresh` is set, missing, or left half-made by
 * an interrupted run (it has no `bench_complete` table). Returns its URL and whether it has to be generated.
 */
export async function benchDatabase(name: string, fresh: boolean): Promise<{ url: string; generate: boolean }> {
  const server = benchServer()
  const url = new URL(server)
  url.pathname = `/${name}`
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  try {
    let generate = fresh || (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount !== 1
    if (!generate) {
      const probe = new pg.Client({ connectionString: url.toString() })
      await probe.connect()
      generate = (await probe.query(`SELECT 1 FROM pg_tables WHERE tablename = 'bench_complete'`)).rowCount !== 1
      await probe.end()
    }
    if (generate) {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.query(`CREATE DATABASE ${name}`)
    }
    return { url: url.toString(), generate }
  } finally {
    await admin.end()
  }
}

export interface BenchCase {
  label: string
  run: () => Promise<unknown>
  times: number[]
}

/** Each case `warmup` times, then `samples` rounds of every case in turn, so machine noise falls on all alike. */
export async function sampleRoundRobin(cases: BenchCase[], samples: number, warmup = 5): Promise<void> {
  for (const c of cases) for (let i = 0; i < warmup; i++) await c.run()
  for (let i = 0; i < samples; i++) {
    for (const c of cases) {
      const started = performance.now()
      await c.run()
      c.times.push(performance.now() - started)
    }
  }
}

/**
 * The large seed in `civic_bench_population` (shared by the population and compare suites), migrated; seeded first
 * when missing or `regenerate`. Returns the handle and the seeding time in seconds (null when reused).
 */
export async function openLargeSeed(regenerate: boolean): Promise<{ handle: DatabaseHandle; seedSeconds: number | null }> {
  const { url, generate } = await benchDatabase('civic_bench_population', regenerate)
  const handle = await connectDatabase({ databaseUrl: url, dataDir: '', poolSize: 4 })
  await migrateToLatest(handle.db)
  if (!generate) return { handle, seedSeconds: null }
  console.error('seeding the large scale (several minutes)')
  const started = performance.now()
  await seedDatabase(handle.db, { scale: 'large', seed: 1, force: false })
  await sql`CREATE TABLE bench_complete ()`.execute(handle.db)
  return { handle, seedSeconds: round((performance.now() - started) / 1000, 1) }
}

/**
 * The benches measure what production runs: the compiled code. Builds dist/ (npm run build) unless it is newer than
 * every file under src/, the rule by which bin/civic-survey.js runs it.
 */
export function ensureBuilt(): void {
  const stale =
    !fs.existsSync('dist/BUILT') ||
    spawnSync('find', ['src', '-newer', 'dist/BUILT', '-print', '-quit'], { encoding: 'utf8' }).stdout !== ''
  if (!stale) return
  const build = spawnSync(process.execPath, ['scripts/build.js'], { stdio: 'inherit' })
  if (build.status !== 0) throw new Error('npm run build failed')
}
