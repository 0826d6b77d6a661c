import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { connectDatabase } from '../../src/db/connect.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { importCensus } from '../../src/modules/census/census.import.ts'
import { benchDatabase, round } from '../shared.ts'

/**
 * npm run bench -- import [--rows N] [--runs N]
 *
 * The census import on PostgreSQL, in a database of its own: a synthetic ONS mid-year estimates file of N records
 * (300,000 by default: about the size of the output-area estimates) imported `runs` times under one date (the
 * first run creates the records, the next ones replace them). The limit, in the same rounds: a bare COPY of the
 * same rows, already in COPY's text form in memory, into the same table after deleting the date's records, in one
 * transaction: what the database itself takes, with no file to read and nothing to check.
 */
export async function runImportBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { rows: { type: 'string', default: '300000' }, runs: { type: 'string', default: '3' } },
  })
  const rows = Number(values.rows)
  const runs = Number(values.runs)
  const { url } = await benchDatabase('civic_bench_import', true)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-bench-import-'))
  const file = path.join(dir, 'census.csv')
  const copyText = writeFile(file, rows)
  const handle = await connectDatabase({ databaseUrl: url, dataDir: '', poolSize: 2 })
  const client = new pg.Client({ connectionString: url })
  try {
    await migrateToLatest(handle.db)
    await client.connect()
    const results = []
    for (let run = 0; run < runs; run++) {
      let started = performance.now()
      const result = await importCensus(handle.db, file, { date: '2022-06-30' })
      const importSeconds = (performance.now() - started) / 1000
      started = performance.now()
      await client.query('BEGIN')
      await client.query(`DELETE FROM census_data WHERE date = '2022-06-30'`)
      await pipeline(Readable.from(copyText), client.query(copyFrom('COPY census_data (code, name, date, all_ages, ages) FROM STDIN')))
      await client.query('COMMIT')
      const limitSeconds = (performance.now() - started) / 1000
      results.push({
        records: result.records,
        replaced: result.replaced,
        import_s: round(importSeconds, 2),
        import_records_per_s: Math.round(result.records / importSeconds),
        bare_copy_s: round(limitSeconds, 2),
        bare_copy_records_per_s: Math.round(rows / limitSeconds),
        import_over_bare_copy: round(importSeconds / limitSeconds, 2),
      })
      console.error(JSON.stringify(results.at(-1)))
    }
    const report = { date: new Date().toISOString(), node: process.version, rows, bytes: fs.statSync(file).size, results }
    fs.mkdirSync('bench/results', { recursive: true })
    const out = `bench/results/import-${report.date.slice(0, 10)}.json`
    fs.writeFileSync(out, JSON.stringify(report, null, 2) + '\n')
    console.log(JSON.stringify(report, null, 2))
    console.error(`written to ${out}`)
  } finally {
    await client.end()
    await handle.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Writes the file and returns the same records in COPY's text form (for the limit), in 1 MB chunks. */
function writeFile(file: string, rows: number): string[] {
  const out = fs.openSync(file, 'w')
  fs.writeSync(out, `Code,Name,Geography,All ages,${Array.from({ length: 90 }, (_, a) => a).join(',')},90+\n`)
  let seed = 1
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 40
  const copy: string[] = []
  let buffer = ''
  let copyBuffer = ''
  for (let i = 0; i < rows; i++) {
    const ages = Array.from({ length: 91 }, next)
    const code = `E00${String(i).padStart(6, '0')}`
    const total = ages.reduce((s, v) => s + v, 0)
    buffer += `${code},Output area ${i},OA,${total},${ages.join(',')}\n`
    copyBuffer += `${code}\tOutput area ${i}\t2022-06-30\t${total}\t{${ages.join(',')}}\n`
    if (buffer.length > 1 << 20) {
      fs.writeSync(out, buffer)
      copy.push(copyBuffer)
      buffer = ''
      copyBuffer = ''
    }
  }
  fs.writeSync(out, buffer)
  copy.push(copyBuffer)
  fs.closeSync(out)
  return copy
}
