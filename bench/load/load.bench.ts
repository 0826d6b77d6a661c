import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import pg from 'pg'
import { heapMiBFor, loadConfig } from '../../src/config.ts'
import { connectDatabase } from '../../src/db/connect.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { seedDatabase } from '../../src/seed/seed.ts'
import { benchDatabase, benchServer, round } from '../shared.ts'
import { runLoad, type LoadFigures } from './autocannon-runner.ts'
import { sampleCpu, sampleResidentPeak, startLimitServer, startService, type Running } from './processes.ts'
import { loadFrom, markdownTable, writeLatestTable, type ScenarioResult } from './report.ts'
import { benchAppKey, crowdOf, pick, readScenarios, tokensFor, type ReadScenario } from './scenarios.ts'
import { wrkInstalled } from './wrk-runner.ts'
import { measureWrite, pickWriters, writeScenarios, type WriteScenario } from './writes.ts'

/**
 * npm run bench -- load [--duration S] [--connections N] [--scenario NAME] [--seed demo|large] [--generator
 * autocannon|wrk] [--crowd N] [--heap-mb N] [--embedded] [--port P]
 * (--heap-mb: the service's V8 heap, by default the one production gives it; 0 for V8's own default)
 * Each read scenario under load (autocannon, or wrk where installed, in a process of its own) for a fixed time
 * against `civic-survey serve` (its own process) on the large or demo seed on PostgreSQL (civic_bench_population or
 * civic_bench_demo, seeded when absent), or on the demo seed on PGlite with --embedded; and, under the same load,
 * against its limit: a bare node:http server answering the same bytes from memory. Requests are sent as the
 * clients send them (the application key, a person's token); keyless rows are apart. On PostgreSQL, then the write
 * scenarios (writes.ts, always under autocannon) against the write limit, each side after 2 s of the same
 * load, each followed by `civic-survey check`.
 * Writes bench/results/load-<seed>-<date>T<time>.json and prints a Markdown table; a run of every scenario on
 * PostgreSQL also puts the table in docs/performance.md, between the markers of its seed.
 */
export async function runLoadBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
      'heap-mb': { type: 'string' },
      connections: { type: 'string', default: '16' },
      scenario: { type: 'string', multiple: true },
      embedded: { type: 'boolean', default: false },
      seed: { type: 'string', default: 'large' },
      generator: { type: 'string', default: 'autocannon' },
      crowd: { type: 'string', default: '20000' },
      port: { type: 'string', default: '8731' },
    },
  })
  const duration = Number(values.duration)
  const connections = Number(values.connections)
  if (!(duration > 0) || !(connections > 0)) throw new Error('--duration and --connections must be positive numbers')
  const heapOption = values['heap-mb'] === undefined ? null : Number(values['heap-mb'])
  if (heapOption !== null && !(Number.isInteger(heapOption) && (heapOption === 0 || heapOption >= 64)))
    throw new Error("--heap-mb must be a whole number of MiB, 64 or more, or 0 for V8's own default")
  if (!Number.isInteger(Number(values.crowd)) || Number(values.crowd) < 0) throw new Error('--crowd must be a whole number')
  if (values.seed !== 'demo' && values.seed !== 'large') throw new Error('--seed must be demo or large')
  if (values.generator !== 'autocannon' && values.generator !== 'wrk') throw new Error('--generator must be autocannon or wrk')
  let generator: 'autocannon' | 'wrk' = values.generator
  if (generator === 'wrk' && !wrkInstalled()) {
    console.error('wrk is not installed (Debian: apt-get install wrk): autocannon makes the load instead')
    generator = 'autocannon'
  }
  console.error(`load from ${generator}${generator === 'wrk' ? ' (the write scenarios: autocannon)' : ''}`)

  // One load run at a time on a seed's database, taken before it is looked at (an unfinished seed is made anew): a
  // second run would replace the first's key and tokens under it. PGlite's directory has a lock of its own.
  const lock = values.embedded ? null : await lockRun(serverDatabaseName(values.seed))
  try {
    const database = values.embedded ? await embeddedDatabase() : await serverDatabase(values.seed)
    const handle = await connectDatabase({ databaseUrl: database.url, dataDir: database.dataDir, poolSize: 2 })
    let picks: Awaited<ReturnType<typeof pick>>
    let scenarios: ReadScenario[]
    let writes: WriteScenario[] = []
    let appKey: string
    const writers: Record<string, number> = {}
    try {
      await migrateToLatest(handle.db)
      if (database.generate) {
        console.error(`seeding the ${database.scale} scale (several minutes at large)`)
        await seedDatabase(handle.db, { scale: database.scale, seed: 1, force: false })
        if (values.embedded) database.done?.()
        else await sql`CREATE TABLE bench_complete ()`.execute(handle.db)
      }
      picks = await pick(handle.db)
      const people = [picks.heavyUser.id, picks.sixtyUser.id, picks.newUser.id]
      // The write scenarios need the pg write limit: PostgreSQL only.
      const writePicks = values.embedded ? null : await pickWriters(handle.db, people, picks.largestCollection)
      const writerIds = writePicks?.users ?? []
      const crowdIds = await crowdOf(handle.db, Number(values.crowd))
      const tokens = await tokensFor(handle.db, [...people, ...writerIds, ...crowdIds])
      const [heavy, sixty, fresh] = tokens
      const writerTokens = tokens.slice(people.length, people.length + writerIds.length)
      const crowd = tokens.slice(people.length + writerIds.length)
      appKey = await benchAppKey(handle.db)
      scenarios = readScenarios(picks, appKey, { heavy: heavy!, sixty: sixty!, fresh: fresh!, crowd })
      writerTokens.forEach((token, i) => (writers[token] = writerIds[i]))
      if (writePicks) writes = writeScenarios(writePicks, writerTokens)
    } finally {
      // PGlite's directory takes one process at a time: the service's.
      await handle.close()
    }
    const matches = (name: string) => !values.scenario || values.scenario.some((wanted) => name.includes(wanted))
    const chosen = scenarios.filter((s) => matches(s.name))
    const chosenWrites = writes.filter((s) => matches(s.name))
    if (chosen.length + chosenWrites.length === 0)
      throw new Error(`no scenario matches ${values.scenario}; they are: ${[...scenarios, ...writes].map((s) => s.name).join(', ')}`)

    // As production runs it (deploy/start, docs/operations.md: Memory): a heap sized to what the process keeps.
    const heapMiB = heapOption ?? heapMiBFor(loadConfig({ ...process.env, ...database.serviceEnv }))
    const report: Record<string, unknown> = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
      database: values.embedded ? 'PGlite, demo seed' : `PostgreSQL, ${values.seed} seed (${database.name})`,
      seed: values.embedded ? 'demo' : values.seed,
      generator,
      heap_mib: heapMiB,
      duration_s: duration,
      connections,
      load_average_start: os.loadavg().map((l) => round(l, 2)),
      picks,
    }
    const service = await startService(database.serviceEnv, Number(values.port), heapMiB === 0 ? null : heapMiB)
    const results: ScenarioResult[] = []
    try {
      for (const scenario of chosen) {
        console.error(`${scenario.name}: ${shown(scenario.path)}`)
        results.push(await measureRead(service, scenario, duration, connections, generator))
        const last = results.at(-1)!
        console.error(`  service ${last.service.requests_per_s}/s, limit ${last.limit.requests_per_s}/s, ratio ${last.ratio}`)
      }
      if (chosenWrites.length > 0) {
        const writeHandle = await connectDatabase({ databaseUrl: database.url, dataDir: '', poolSize: 1 })
        try {
          for (const scenario of chosenWrites) {
            console.error(`${scenario.name} (${Object.keys(writers).length} people)`)
            results.push(
              await measureWrite(
                writeHandle.db,
                service,
                database.serviceEnv,
                database.url!,
                writers,
                scenario,
                duration,
                connections,
                appKey,
              ),
            )
            const last = results.at(-1)!
            console.error(`  service ${last.service.requests_per_s}/s, limit ${last.limit.requests_per_s}/s, ratio ${last.ratio}`)
          }
        } finally {
          await writeHandle.close()
        }
      }
    } finally {
      await service.stop()
    }
    report.load_average_end = os.loadavg().map((l) => round(l, 2))
    report.results = results
    fs.mkdirSync('bench/results', { recursive: true })
    // One file a run, named by its seed and start, so that the runs of both seeds (and of one day) are all kept.
    const stamp = String(report.date).slice(0, 16).replace(':', '')
    const file = `bench/results/load-${values.embedded ? 'embedded' : values.seed}-${stamp}.json`
    fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
    console.log(JSON.stringify(report, null, 2))
    console.log(`\n${report.database}, ${loadFrom(results)}, ${connections} connections, ${duration} s per run\n`)
    console.log(markdownTable(results))
    console.error(`written to ${file}`)
    // Only a run of every scenario replaces the page's table: a run of a few would leave it showing those alone. The
    // page's two tables are PostgreSQL's (large seed, demo seed); an embedded run, reads only, leaves both.
    const marker = values.seed === 'demo' ? 'load:latest-demo' : 'load:latest'
    if (values.scenario) console.error('(some scenarios only: docs/performance.md is left as it is)')
    else if (values.embedded) console.error('(embedded: docs/performance.md is left as it is)')
    else if (writeLatestTable('docs/performance.md', report, results, marker))
      console.error(`and to docs/performance.md (Latest run, ${values.seed} seed)`)
  } finally {
    await lock?.end()
  }
}

/**
 * Holds a session lock, on the server's own database, named after the bench database, for the whole run; stops at
 * once, saying why, when another run holds it (each run replaces the `bench-load` key and tokens the other sends).
 */
async function lockRun(name: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: benchServer() })
  await client.connect()
  const { rows } = await client.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`, [
    `civic-survey bench load ${name}`,
  ])
  if (!rows[0]?.locked) {
    await client.end()
    throw new Error(`another load run is using ${name}: wait for it to end (two at once would replace each other's key and tokens)`)
  }
  return client
}

/** The seed on PostgreSQL, in a database of its own, reused (seeded only when missing or left half-made). */
const serverDatabaseName = (seed: 'demo' | 'large') => (seed === 'large' ? 'civic_bench_population' : 'civic_bench_demo')

async function serverDatabase(seed: 'demo' | 'large') {
  const name = serverDatabaseName(seed)
  const { url, generate } = await benchDatabase(name, false)
  return { url, name, dataDir: '', generate, scale: seed, serviceEnv: { DATABASE_URL: url }, done: undefined }
}

/** The demo seed in a PGlite directory of the bench's own, kept between runs. */
async function embeddedDatabase() {
  const dataDir = path.resolve('.tmp/bench-load-pglite')
  const generate = !fs.existsSync(path.join(dataDir, 'seeded'))
  if (generate) fs.rmSync(dataDir, { recursive: true, force: true })
  fs.mkdirSync(dataDir, { recursive: true })
  const done = () => fs.writeFileSync(path.join(dataDir, 'seeded'), '')
  return {
    url: null,
    name: dataDir,
    dataDir,
    generate,
    scale: 'demo' as const,
    serviceEnv: { DATABASE_URL: '', DATA_DIR: dataDir },
    done,
  }
}

/**
 * The response fetched once (it must be a 200), then the same load on its limit and on the service: the limit
 * first, then one second of the load on the service (not measured), so that the service runs compiled code and its
 * kept answers, as a serving process does; a crowd is then seen whole, each person once.
 */
async function measureRead(
  service: Running,
  scenario: ReadScenario,
  duration: number,
  connections: number,
  generator: 'autocannon' | 'wrk',
): Promise<ScenarioResult> {
  const response = await fetch(service.url + scenario.path, { headers: scenario.headers })
  const body = Buffer.from(await response.arrayBuffer())
  if (response.status !== 200) throw new Error(`${scenario.name}: ${response.status} ${body.toString().slice(0, 300)}`)
  const load = (url: string) => runLoad({ url, connections, duration, headers: scenario.headers, crowd: scenario.crowd, generator })
  const limit = await startLimitServer(body, response.headers.get('content-type') ?? 'application/json')
  let limitFigures: LoadFigures
  try {
    limitFigures = await load(limit.url + scenario.path)
  } finally {
    await limit.stop()
  }
  // A second's load first, so the run measures code already compiled, as a serving process's is.
  await runLoad({ url: service.url + scenario.path, connections, duration: 1, headers: scenario.headers, generator })
  const peak = sampleResidentPeak(service.process.pid!)
  // A crowd is seen whole first, each person once, so the run and its peak memory follow every one of them.
  if (scenario.crowd) await visitEach(service.url + scenario.path, scenario.crowd, connections)
  const cpu = sampleCpu(service.process.pid!)
  const serviceFigures = await load(service.url + scenario.path)
  const peakMiB = peak()
  const cores = cpu()
  const ratio = round(serviceFigures.requests_per_s / limitFigures.requests_per_s, 4)
  const rssTarget = scenario.rssTargetMiB
  return {
    scenario: scenario.name,
    path: shown(scenario.path),
    signed_in: scenario.signedIn,
    app_key: scenario.appKey,
    generator,
    ...(scenario.target === undefined ? {} : { target: scenario.target, met: ratio >= scenario.target }),
    ...(rssTarget === undefined ? {} : { rss_target_mib: rssTarget, rss_met: peakMiB !== null && peakMiB < rssTarget }),
    ...(scenario.crowd ? { people: scenario.crowd.length } : {}),
    bytes: body.length,
    service: serviceFigures,
    limit: limitFigures,
    ratio,
    service_peak_rss_mib: peakMiB === null ? null : round(peakMiB, 1),
    ...cores,
  }
}

/** A scenario's path as printed and reported: the key left out. */
const shown = (path: string) => path.replace(/AppAuthorization=[^&]+/, 'AppAuthorization=…')

/** One read by each person of a crowd, `parallel` at a time; every answer must be a 200. */
async function visitEach(url: string, tokens: string[], parallel: number): Promise<void> {
  let next = 0
  const visitor = async () => {
    while (next < tokens.length) {
      const token = tokens[next++]!
      const response = await fetch(url, { headers: { authorization: `Token ${token}` } })
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`the crowd's read answered ${response.status}`)
    }
  }
  await Promise.all(Array.from({ length: parallel }, visitor))
}
