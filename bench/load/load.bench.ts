import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { sql } from 'kysely'
import { connectDatabase } from '../../src/db/connect.ts'
import { migrateToLatest } from '../../src/db/migrate.ts'
import { seedDatabase } from '../../src/seed/seed.ts'
import { benchDatabase, round } from '../shared.ts'
import { runLoad, type LoadFigures } from './autocannon-runner.ts'
import { sampleCpu, sampleResidentPeak, startLimitServer, startService, type Running } from './processes.ts'
import { markdownTable, writeLatestTable, type ScenarioResult } from './report.ts'
import { benchAppKey, crowdOf, pick, readScenarios, tokensFor, type ReadScenario } from './scenarios.ts'
import { wrkInstalled } from './wrk-runner.ts'
import { measureWrite, pickWriters, writeScenarios, type WriteScenario } from './writes.ts'

/**
 * npm run bench -- load [--duration S] [--connections N] [--scenario NAME] [--seed demo|large] [--generator
 * autocannon|wrk] [--crowd N] [--embedded] [--port P]
 * Each read scenario under load (autocannon, or wrk where installed, in a process of its own) for a fixed time
 * against `civic-survey serve` (its own process) on the large or demo seed on PostgreSQL (civic_bench_population or
 * civic_bench_demo, seeded when absent), or on the demo seed on PGlite with --embedded; and, under the same load,
 * against its limit: a bare node:http server answering the same bytes from memory. Requests are sent as the
 * clients send them (the application key, a person's token); keyless rows are apart. On PostgreSQL, then the write
 * scenarios (writes.ts) against the write limit, each followed by `civic-survey check`. Writes
 * bench/results/load-<date>.json and prints a Markdown table.
 */
export async function runLoadBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
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
  if (values.seed !== 'demo' && values.seed !== 'large') throw new Error('--seed must be demo or large')
  if (values.generator !== 'autocannon' && values.generator !== 'wrk') throw new Error('--generator must be autocannon or wrk')
  let generator: 'autocannon' | 'wrk' = values.generator
  if (generator === 'wrk' && !wrkInstalled()) {
    console.error('wrk is not installed (Debian: apt-get install wrk): autocannon makes the load instead')
    generator = 'autocannon'
  }

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
    const writePicks = values.embedded ? null : await pickWriters(handle.db, people, picks.largestCollection.id)
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

  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
    database: values.embedded ? 'PGlite, demo seed' : `PostgreSQL, ${values.seed} seed (${database.name})`,
    seed: values.embedded ? 'demo' : values.seed,
    generator,
    duration_s: duration,
    connections,
    load_average_start: os.loadavg().map((l) => round(l, 2)),
    picks,
  }
  const service = await startService(database.serviceEnv, Number(values.port))
  const results: ScenarioResult[] = []
  try {
    for (const scenario of chosen) {
      console.error(`${scenario.name}: ${scenario.path}`)
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
  const file = `bench/results/load-${String(report.date).slice(0, 10)}.json`
  fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
  console.log(JSON.stringify(report, null, 2))
  console.log('\n' + markdownTable(results))
  console.error(`written to ${file}`)
  // Only a run of every scenario replaces the page's table: a run of a few would leave it showing those alone.
  if (values.scenario) console.error('(some scenarios only: docs/performance.md is left as it is)')
  else if (writeLatestTable('docs/performance.md', report, results, report.seed === 'demo' ? 'load:latest-demo' : 'load:latest'))
    console.error('and to docs/performance.md (Latest run)')
}

/** The seed on PostgreSQL, in a database of its own, reused (seeded only when missing or left half-made). */
async function serverDatabase(seed: 'demo' | 'large') {
  const name = seed === 'large' ? 'civic_bench_population' : 'civic_bench_demo'
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
 * The response fetched once (it must be a 200), then the same load on its limit and on the service, the limit
 * first so the service's caches, if any, are as warm as a fetch makes them and no warmer.
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
  const peak = sampleResidentPeak(service.process.pid!)
  // A crowd is seen whole first, each person once, so the run and its peak memory follow every one of them.
  if (scenario.crowd) await visitEach(service.url + scenario.path, scenario.crowd, connections)
  const cpu = sampleCpu(service.process.pid!)
  const serviceFigures = await load(service.url + scenario.path)
  const peakMiB = peak()
  const cores = cpu()
  const ratio = round(serviceFigures.requests_per_s / limitFigures.requests_per_s, 4)
  return {
    scenario: scenario.name,
    path: scenario.path.replace(/AppAuthorization=[^&]+/, 'AppAuthorization=…'),
    signed_in: scenario.signedIn,
    app_key: scenario.appKey,
    ...(scenario.target === undefined ? {} : { target: scenario.target, met: ratio >= scenario.target }),
    ...(scenario.crowd ? { people: scenario.crowd.length } : {}),
    bytes: body.length,
    service: serviceFigures,
    limit: limitFigures,
    ratio,
    service_peak_rss_mib: peakMiB === null ? null : round(peakMiB, 1),
    ...cores,
  }
}

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
