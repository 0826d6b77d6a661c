/**
 * The test command: builds the template databases once (migrated, and migrated plus the tiny seed),
 * then runs every test file with node's test runner, each file on its own copy of a template.
 * With DATABASE_URL set the suite runs against that PostgreSQL server; otherwise on embedded PGlite.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import { sql } from 'kysely'
import pg from 'pg'
import { connectDatabase } from '../src/db/connect.ts'
import { migrateToLatest } from '../src/db/migrate.ts'
import { seedDatabase } from '../src/seed/seed.ts'
import { bundleTestFiles } from './helpers/bundle.ts'
import { startPgBouncer } from './helpers/pgbouncer.ts'
import {
  databaseUrlFor,
  serverUrl,
  templateDir,
  templateDatabaseName,
  templateFile,
  type DataDirTemplateName,
  type TemplateName,
} from './helpers/databases.ts'
// @ts-expect-error plain JavaScript (node loads reporters before any loader hook), without types
import fileTimes from './helpers/file-times.reporter.js'

const TEMPLATES: TemplateName[] = ['empty', 'tiny']
process.env.CIVIC_TEST_RUN ??= String(process.pid)

async function fill(name: TemplateName, handle: Awaited<ReturnType<typeof connectDatabase>>) {
  await migrateToLatest(handle.db)
  if (name === 'tiny') await seedDatabase(handle.db, { scale: 'tiny', seed: 1, force: false })
}

async function buildTemplates(): Promise<() => Promise<void>> {
  const server = serverUrl()
  if (!server) {
    // A new PGlite database costs an initdb; build both templates on one, dumping it after each step.
    fs.mkdirSync(templateDir(), { recursive: true })
    // Every test's database is loaded from these files: with 1 MB WAL segments instead of 16 and without the
    // template databases (the embedded engine creates no databases), a copy loads in about half the CPU.
    const handle = await connectDatabase({ databaseUrl: null, dataDir: '', inMemory: true, pgliteInitdbArgs: ['--wal-segsize=1'] })
    await sql`UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')`.execute(handle.db)
    for (const name of ['template0', 'template1']) await sql.raw(`DROP DATABASE ${name}`).execute(handle.db)
    await sql`CHECKPOINT`.execute(handle.db)
    const dump = async (name: DataDirTemplateName) => {
      const tarball = await handle.dumpDataDir!()
      fs.writeFileSync(templateFile(name), Buffer.from(await tarball.arrayBuffer()))
    }
    await dump('blank')
    for (const name of TEMPLATES) {
      await fill(name, handle)
      await dump(name)
    }
    await handle.close()
    return async () => fs.rmSync(templateDir(), { recursive: true, force: true })
  }
  const admin = new pg.Client({ connectionString: server })
  await admin.connect()
  for (const name of TEMPLATES) {
    const database = templateDatabaseName(name)
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
    await admin.query(`CREATE DATABASE ${database}`)
    const handle = await connectDatabase({ databaseUrl: databaseUrlFor(server, database), dataDir: '' })
    await fill(name, handle)
    await handle.close()
  }
  return async () => {
    for (const name of TEMPLATES) await admin.query(`DROP DATABASE IF EXISTS ${templateDatabaseName(name)} WITH (FORCE)`)
    await admin.end()
  }
}

/**
 * TEST_POOLER=1 on PostgreSQL: the service in every test reaches its database through a PgBouncer in transaction
 * mode (test/helpers/pgbouncer.ts), so the whole suite's statements pass through the pooler as in production.
 */
async function startPooler(): Promise<() => void> {
  const server = serverUrl()
  if (!server || process.env.TEST_POOLER !== '1') return () => {}
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-pooler-'))
  const { hostname, port } = new URL(server)
  const bouncer = await startPgBouncer({ dir, host: hostname, port: Number(port || 5432), poolSize: 4 })
  process.env.CIVIC_TEST_POOLER_URL = bouncer.baseUrl
  const stop = () => {
    bouncer.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
  process.once('exit', stop)
  return stop
}

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'helpers' ? [] : testFiles(full)
    return entry.name.endsWith('.test.ts') ? [full] : []
  })
}

/**
 * The files that take longest (measured with TEST_TIMES, docs/testing.md) start first, so that the run does not
 * end waiting on one of them while the other worker is idle.
 */
const SLOW_FIRST = [
  'test/cli/cli.test.ts',
  'test/fuzz/fuzz.test.ts',
  'test/http/permissions',
  'test/http/crowd',
  'test/scale/',
  'test/reliability/crash',
  'test/api/openapi',
  'test/reliability/data-dir-lock',
  'test/cli/',
  'test/liquid/random-sequences',
  'test/browser/',
  'test/votes/',
  'test/disclosure/',
  'test/api/root-walk',
  'test/seed/',
  'test/reliability/',
]
const slowRank = (file: string) => {
  const rank = SLOW_FIRST.findIndex((prefix) => file.startsWith(prefix))
  return rank === -1 ? SLOW_FIRST.length : rank
}

/**
 * Files run at once (TEST_CONCURRENCY, default 2). Many files spend part of their time waiting (on processes
 * they start, on the PostgreSQL server, on timers), so a little more than the number of cores keeps them busy.
 */
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY || 2)
const TIMEOUT_MS = Number(process.env.TEST_TIMEOUT_MS || 600_000)

const started = Date.now()
const filter = process.argv.slice(2)
const files = testFiles('test')
  .filter((file) => filter.length === 0 || filter.some((f) => file.includes(f)))
  .sort((a, b) => slowRank(a) - slowRank(b) || a.localeCompare(b))
const [dropTemplates, { bundles, cliScript, remove: removeBundles }, stopPooler] = await Promise.all([
  buildTemplates(),
  bundleTestFiles(files),
  startPooler(),
])
// The processes the tests start as `civic-survey` run the bundled entry too (test/helpers/cli/command.ts).
process.env.CIVIC_TEST_CLI = cliScript
console.error(
  `templates and bundles ready in ${((Date.now() - started) / 1000).toFixed(1)}s on ${serverUrl() ? 'PostgreSQL' : 'PGlite'}${process.env.CIVIC_TEST_POOLER_URL ? ' through PgBouncer' : ''}; ${files.length} test files`,
)
// node's test runner, called here rather than by `node --test`, which sorts the files by name whatever their order.
// Each file still runs in a process of its own, started with this process's flags, less tsx (the bundles are
// JavaScript), plus the two below. TEST_SOURCE_MAPS=1 maps stack traces to the TypeScript lines; it costs about a
// tenth of the suite's time (each process reads the maps), so it is off unless a failure needs it.
const flags: string[] = []
for (let i = 0; i < process.execArgv.length; i++) {
  const flag = process.execArgv[i]
  if (flag === '--import' && process.execArgv[i + 1] === 'tsx') i++
  else if (flag !== '--import=tsx') flags.push(flag)
}
if (process.env.TEST_SOURCE_MAPS === '1') flags.push('--enable-source-maps')
process.execArgv.splice(0, Infinity, ...flags, '--test-force-exit', `--test-timeout=${TIMEOUT_MS}`)
const stream = run({
  files: files.map((file) => bundles.get(file)!),
  concurrency: CONCURRENCY,
  timeout: TIMEOUT_MS,
  forceExit: true,
})
let failed = 0
stream.on('test:fail', (event: { todo?: boolean | string }) => {
  if (!event.todo) failed++
})
const reporting = [pipeline(stream.compose(new spec()), process.stdout)]
// TEST_TIMES=<file>: also write each file's time there, slowest first.
if (process.env.TEST_TIMES)
  reporting.push(pipeline(stream.compose(fileTimes), new Writable({ write: (_chunk, _encoding, done) => done() })))
await Promise.all(reporting)
stopPooler()
await dropTemplates()
removeBundles()
process.exit(failed === 0 ? 0 : 1)
