/**
 * node --import tsx bench/import/import.bench.ts [--rows N] [--runs N]
 *
 * The census import's speed on PostgreSQL (BENCH_DATABASE_URL, else DATABASE_URL, else the local server), in a
 * database of its own: writes a synthetic ONS mid-year estimates file of N records (300,000 by default: about the
 * size of the output-area estimates), then imports it `runs` times under one date (the first run creates the
 * records, the next ones replace them) and prints the records per second of each run as JSON.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { connectDatabase } from '../../src/db/connect.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { importCensus } from '../../src/modules/census/census.import.ts'

const { values } = parseArgs({ options: { rows: { type: 'string', default: '300000' }, runs: { type: 'string', default: '3' } } })
const rows = Number(values.rows)
const runs = Number(values.runs)

function writeFile(file: string): void {
  const out = fs.openSync(file, 'w')
  fs.writeSync(out, `Code,Name,Geography,All ages,${Array.from({ length: 90 }, (_, a) => a).join(',')},90+\n`)
  let seed = 1
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 40
  let buffer = ''
  for (let i = 0; i < rows; i++) {
    const ages = Array.from({ length: 91 }, next)
    buffer += `E00${String(i).padStart(6, '0')},Output area ${i},OA,${ages.reduce((s, v) => s + v, 0)},${ages.join(',')}\n`
    if (buffer.length > 1 << 20) {
      fs.writeSync(out, buffer)
      buffer = ''
    }
  }
  fs.writeSync(out, buffer)
  fs.closeSync(out)
}

const server = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const name = 'civic_bench_import'
const admin = new pg.Client({ connectionString: server })
await admin.connect()
await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
await admin.query(`CREATE DATABASE ${name}`)
await admin.end()
const url = new URL(server)
url.pathname = `/${name}`
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-bench-import-'))
const file = path.join(dir, 'census.csv')
writeFile(file)
const handle = await connectDatabase({ databaseUrl: url.toString(), dataDir: '' })
try {
  await migrateToLatest(handle.db)
  const results = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    const result = await importCensus(handle.db, file, { date: '2022-06-30' })
    const seconds = (performance.now() - started) / 1000
    results.push({ ...result, seconds: Math.round(seconds * 100) / 100, recordsPerSecond: Math.round(result.records / seconds) })
  }
  console.log(
    JSON.stringify({ date: new Date().toISOString(), node: process.version, rows, bytes: fs.statSync(file).size, results }, null, 2),
  )
} finally {
  await handle.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
