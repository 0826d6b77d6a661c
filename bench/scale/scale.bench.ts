import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { connectDatabase } from '../../src/db/connect.ts'
import { round } from '../shared.ts'
import { runLoad, type LoadFigures, type LoadRun } from '../load/autocannon-runner.ts'
import { startLimitServer, startWriteLimitServer, type Running } from '../load/processes.ts'
import { benchAppKey, pick, readScenarios, tokensFor, type ReadScenario } from '../load/scenarios.ts'
import { pickWriters, writeScenarios, type WriteScenario } from '../load/writes.ts'

/**
 * npm run bench -- scale [--duration S] [--connections N] [--scenario NAME]… [--seed demo|large] [--keep]
 *
 * The load suite's scenarios (bench/load) on the reference deployment (deploy/start: a primary, a streaming replica,
 * PgBouncer in transaction mode, `serve` processes behind HAProxy), its state under .tmp/bench-scale-<seed>/ and
 * kept between runs (the seed is loaded once). The read scenarios run in four configurations, one after another:
 * 1 and 2 processes, each reading the primary only and then reading the replica; the write scenarios (the answering
 * loop by default) run with 2 processes, through PgBouncer. Each scenario's limit (bench/load's bare servers) is
 * measured once per run, before the first configuration, under the same load. Where the CPU went is sampled per
 * part: the service processes, the primary, the replica, PgBouncer and HAProxy. Writes bench/results/scale-<date>.json
 * and prints a Markdown table. The processes share Redis (REDIS_URL, else the local one) for the callers' write
 * positions and the rate limits. --keep leaves the deployment running at the end.
 */

interface Configuration {
  name: string
  serves: number
  replicaReads: boolean
}

const CONFIGURATIONS: Configuration[] = [
  { name: '1 process, primary', serves: 1, replicaReads: false },
  { name: '2 processes, primary', serves: 2, replicaReads: false },
  { name: '1 process, replica', serves: 1, replicaReads: true },
  { name: '2 processes, replica', serves: 2, replicaReads: true },
]

/** Ports of the bench's own deployment, apart from deploy/'s defaults so that both can run. */
const PORTS = { primary: 5462, replica: 5463, pgbouncer: 6462, http: 8190, stats: 8494, serve: 8191 }

interface Cores {
  service: number
  primary: number
  replica: number
  pgbouncer: number
  haproxy: number
}

interface ScaleResult {
  configuration: string
  scenario: string
  path: string
  connections: number
  service: LoadFigures
  limit: LoadFigures
  ratio: number
  cores: Cores
  check?: { clean: boolean; summary: string }
}

export async function runScaleBench(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '16' },
      scenario: { type: 'string', multiple: true },
      seed: { type: 'string', default: 'large' },
      keep: { type: 'boolean', default: false },
    },
  })
  const duration = Number(values.duration)
  const connections = Number(values.connections)
  if (!(duration > 0) || !(connections > 0)) throw new Error('--duration and --connections must be positive numbers')
  if (values.seed !== 'demo' && values.seed !== 'large') throw new Error('--seed must be demo or large')
  const deployment = new Deployment(path.resolve(`.tmp/bench-scale-${values.seed}`), values.seed)

  // The first start makes the cluster and seeds it (minutes at large); the picks and tokens go to the primary.
  await deployment.start(CONFIGURATIONS[0])
  let reads: ReadScenario[]
  let writes: WriteScenario[]
  const writers: Record<string, number> = {}
  const handle = await connectDatabase({ databaseUrl: deployment.url('primary'), dataDir: '', poolSize: 2 }).catch(async (error) => {
    await deployment.stop()
    throw error
  })
  try {
    const picks = await pick(handle.db)
    const people = [picks.heavyUser.id, picks.sixtyUser.id, picks.newUser.id]
    const writePicks = await pickWriters(handle.db, people, picks.largestCollection)
    const [heavy, sixty, fresh, ...writerTokens] = await tokensFor(handle.db, [...people, ...writePicks.users])
    writerTokens.forEach((token, i) => (writers[token] = writePicks.users[i]))
    reads = readScenarios(picks, await benchAppKey(handle.db), { heavy: heavy!, sixty: sixty!, fresh: fresh!, crowd: [] })
    writes = writeScenarios(writePicks, writerTokens)
  } catch (error) {
    await deployment.stop()
    throw error
  } finally {
    await handle.close()
  }
  const matches = (name: string) => (values.scenario ? values.scenario.some((wanted) => name.includes(wanted)) : true)
  const chosenReads = reads.filter((s) => matches(s.name))
  // Without --scenario: the answering loop alone of the write scenarios (the surges are the load suite's).
  const chosenWrites = writes.filter((s) => (values.scenario ? matches(s.name) : s.name === 'answering loop'))
  if (chosenReads.length + chosenWrites.length === 0)
    throw new Error(`no scenario matches ${values.scenario}; they are: ${[...reads, ...writes].map((s) => s.name).join(', ')}`)

  const report: Record<string, unknown> = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model}`,
    seed: values.seed,
    duration_s: duration,
    connections,
    load_average_start: os.loadavg().map((l) => round(l, 2)),
  }
  const results: ScaleResult[] = []
  const limits = new Map<string, LoadFigures>()
  try {
    for (const configuration of CONFIGURATIONS) {
      const last = configuration === CONFIGURATIONS.at(-1)
      const writesHere = configuration.serves === 2 ? chosenWrites : []
      if (chosenReads.length === 0 && writesHere.length === 0) continue
      await deployment.start(configuration)
      for (const scenario of chosenReads) {
        results.push(await measureRead(deployment, configuration, scenario, limits, duration, connections))
        log(results.at(-1)!)
      }
      for (const scenario of writesHere) {
        results.push(await measureWrite(deployment, configuration, scenario, writers, limits, duration, connections))
        log(results.at(-1)!)
      }
      if (!last || !values.keep) await deployment.stop()
    }
  } catch (error) {
    await deployment.stop()
    throw error
  }
  report.load_average_end = os.loadavg().map((l) => round(l, 2))
  report.results = results
  report.model = model(results)
  fs.mkdirSync('bench/results', { recursive: true })
  const file = `bench/results/scale-${String(report.date).slice(0, 10)}.json`
  fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n')
  console.log(markdown(results))
  console.log('\n' + modelLines(report.model as Model).join('\n'))
  console.error(
    `written to ${file}${values.keep ? `; the deployment is still running (DEPLOY_STATE_DIR=${deployment.state} deploy/stop)` : ''}`,
  )
}

const log = (r: ScaleResult) =>
  console.error(`  ${r.configuration} · ${r.scenario}: ${r.service.requests_per_s}/s, limit ${r.limit.requests_per_s}/s, ratio ${r.ratio}`)

/** deploy/start and deploy/stop on a state directory of the bench's own. */
class Deployment {
  private current: Configuration | null = null

  constructor(
    readonly state: string,
    private readonly seed: string,
  ) {}

  private env(configuration: Configuration): NodeJS.ProcessEnv {
    const limit = '10000000'
    return {
      ...process.env,
      DEPLOY_STATE_DIR: this.state,
      DEPLOY_SEED: this.seed,
      DEPLOY_SERVES: String(configuration.serves),
      DEPLOY_REPLICA_READS: configuration.replicaReads ? 'on' : 'off',
      DEPLOY_PRIMARY_PORT: String(PORTS.primary),
      DEPLOY_REPLICA_PORT: String(PORTS.replica),
      DEPLOY_PGBOUNCER_PORT: String(PORTS.pgbouncer),
      DEPLOY_HTTP_PORT: String(PORTS.http),
      DEPLOY_STATS_PORT: String(PORTS.stats),
      DEPLOY_SERVE_PORT: String(PORTS.serve),
      // Read-your-writes across the processes needs their write positions in Redis (docs/operations.md).
      REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
      REDIS_PREFIX: 'civic-bench-scale:',
      // As the load suite's service: quiet, and the rate limits out of the way (one address, a few tokens).
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ANONYMOUS: limit,
      RATE_LIMIT_APP_KEY: limit,
      RATE_LIMIT_USER: limit,
      RATE_LIMIT_IP: limit,
    }
  }

  /** Starts the deployment in this configuration (stopping it first), unless it runs in it already. */
  async start(configuration: Configuration): Promise<void> {
    if (this.current === configuration) return
    await this.stop()
    console.error(`deploy/start: ${configuration.name}`)
    await run('deploy/start', this.env(configuration))
    this.current = configuration
  }

  async stop(): Promise<void> {
    this.current = null
    if (fs.existsSync(this.state)) await run('deploy/stop', { ...process.env, DEPLOY_STATE_DIR: this.state })
  }

  get api(): string {
    return `http://127.0.0.1:${PORTS.http}`
  }

  url(node: 'primary' | 'replica' | 'pgbouncer'): string {
    const password = fs.readFileSync(path.join(this.state, 'pg/password'), 'utf8').trim()
    return `postgres://civic:${password}@127.0.0.1:${PORTS[node]}/civic`
  }

  private pid(file: string): number | null {
    try {
      return Number(fs.readFileSync(path.join(this.state, file), 'utf8').split('\n')[0]) || null
    } catch {
      return null
    }
  }

  /** The root process of each part (PostgreSQL's postmasters; every serve process). */
  parts(): Record<keyof Cores, number[]> {
    const serves = fs
      .readdirSync(path.join(this.state, 'run'))
      .filter((f) => /^serve-\d+\.pid$/.test(f))
      .map((f) => this.pid(`run/${f}`))
    const one = (file: string) => [this.pid(file)].filter((p): p is number => p !== null)
    return {
      service: serves.filter((p): p is number => p !== null),
      primary: one('pg/primary/postmaster.pid'),
      replica: one('pg/replica/postmaster.pid'),
      pgbouncer: one('pg/bouncer/pgbouncer.pid'),
      haproxy: one('run/haproxy.pid'),
    }
  }
}

/** A script of deploy/, its output on this process's stderr; rejects on a status other than 0. */
function run(script: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(script, { env, stdio: ['ignore', 2, 2] })
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script} ended with status ${code}`))))
  })
}

/** CPU seconds (user + system) of each process now, and each one's parent, from /proc (Linux). */
function processTable(): Map<number, { parent: number; seconds: number }> {
  const table = new Map<number, { parent: number; seconds: number }>()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const fields = fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')
      table.set(Number(entry), { parent: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / 100 })
    } catch {
      // gone meanwhile
    }
  }
  return table
}

/** Cores each part used while `work` ran: its root processes and their descendants (those that ended are missed). */
async function coresDuring<T>(parts: Record<keyof Cores, number[]>, work: () => Promise<T>): Promise<{ value: T; cores: Cores }> {
  const tree = (table: ReturnType<typeof processTable>, roots: number[]) => {
    const members = new Set(roots)
    for (let grew = true; grew;) {
      grew = false
      for (const [pid, { parent }] of table)
        if (members.has(parent) && !members.has(pid)) {
          members.add(pid)
          grew = true
        }
    }
    return members
  }
  const before = processTable()
  const started = performance.now()
  const value = await work()
  const wall = (performance.now() - started) / 1000
  const after = processTable()
  const cores = {} as Cores
  for (const [part, roots] of Object.entries(parts) as [keyof Cores, number[]][]) {
    let used = 0
    for (const pid of tree(after, roots)) used += (after.get(pid)?.seconds ?? 0) - (before.get(pid)?.seconds ?? 0)
    cores[part] = round(used / wall, 2)
  }
  return { value, cores }
}

/** The limit of a read scenario, measured once per run: bench/load's bare server answering the same bytes. */
async function readLimit(body: Buffer, contentType: string, scenario: ReadScenario, duration: number, connections: number) {
  const limit = await startLimitServer(body, contentType)
  try {
    return await runLoad({ url: limit.url + scenario.path, connections, duration, headers: scenario.headers })
  } finally {
    await limit.stop()
  }
}

async function measureRead(
  deployment: Deployment,
  configuration: Configuration,
  scenario: ReadScenario,
  limits: Map<string, LoadFigures>,
  duration: number,
  connections: number,
): Promise<ScaleResult> {
  const response = await fetch(deployment.api + scenario.path, { headers: scenario.headers })
  const body = Buffer.from(await response.arrayBuffer())
  if (response.status !== 200) throw new Error(`${scenario.name}: ${response.status} ${body.toString().slice(0, 300)}`)
  if (!limits.has(scenario.name))
    limits.set(
      scenario.name,
      await readLimit(body, response.headers.get('content-type') ?? 'application/json', scenario, duration, connections),
    )
  const run: LoadRun = { url: deployment.api + scenario.path, connections, duration, headers: scenario.headers }
  return result(deployment, configuration, scenario.name, scenario.path, run, limits.get(scenario.name)!)
}

async function measureWrite(
  deployment: Deployment,
  configuration: Configuration,
  scenario: WriteScenario,
  writers: Record<string, number>,
  limits: Map<string, LoadFigures>,
  duration: number,
  runConnections: number,
): Promise<ScaleResult> {
  const connections = scenario.connections ?? runConnections
  if (!limits.has(scenario.name)) {
    // bench/load's write limit, its pool through the same PgBouncer.
    const limit: Running = await startWriteLimitServer(deployment.url('pgbouncer'), writers, 10)
    try {
      limits.set(scenario.name, await runLoad({ url: limit.url, connections, duration, write: scenario.write }))
    } finally {
      await limit.stop()
    }
  }
  const run: LoadRun = { url: deployment.api, connections, duration, write: scenario.write }
  const measured = await result(
    deployment,
    configuration,
    scenario.name,
    `${scenario.write.kind} (writes)`,
    run,
    limits.get(scenario.name)!,
  )
  return { ...measured, connections, check: await check(deployment.url('primary')) }
}

async function result(
  deployment: Deployment,
  configuration: Configuration,
  name: string,
  pathName: string,
  run: LoadRun,
  limit: LoadFigures,
): Promise<ScaleResult> {
  const { value: service, cores } = await coresDuring(deployment.parts(), () => runLoad(run))
  return {
    configuration: configuration.name,
    scenario: name,
    path: pathName,
    connections: run.connections,
    service,
    limit,
    ratio: round(service.requests_per_s / limit.requests_per_s, 4),
    cores,
  }
}

/** `civic-survey check` on the primary after a write scenario. */
async function check(databaseUrl: string): Promise<{ clean: boolean; summary: string }> {
  try {
    const { stderr } = await promisify(execFile)(process.execPath, ['bin/civic-survey.js', 'check'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      maxBuffer: 256 * 1024 * 1024,
    })
    return { clean: true, summary: stderr.trim().split('\n').at(-1) ?? '' }
  } catch (error) {
    return {
      clean: false,
      summary:
        String((error as { stderr?: string }).stderr ?? error)
          .trim()
          .split('\n')
          .at(-1) ?? '',
    }
  }
}

interface Model {
  /** read req/s per core of the service processes, per configuration (the mean over the read scenarios) */
  reads_per_service_core: Record<string, number>
  /** read req/s per core of the replica, in the configurations that read it */
  reads_per_replica_core: Record<string, number>
  /** answers/s (half the answering loop's requests) per core of the primary */
  answers_per_primary_core: Record<string, number>
  /** server connections: each process's pool (10) and its listener, against PgBouncer's pool */
  connections_per_process: string
}

function model(results: ScaleResult[]): Model {
  const mean = (values: number[]) => (values.length ? round(values.reduce((a, b) => a + b, 0) / values.length, 1) : 0)
  const per = (filter: (r: ScaleResult) => boolean, value: (r: ScaleResult) => number | null) => {
    const out: Record<string, number> = {}
    for (const configuration of CONFIGURATIONS) {
      const values = results
        .filter((r) => r.configuration === configuration.name && filter(r))
        .map(value)
        .filter((v): v is number => v !== null && Number.isFinite(v))
      if (values.length) out[configuration.name] = mean(values)
    }
    return out
  }
  const isRead = (r: ScaleResult) => !r.path.endsWith('(writes)')
  return {
    reads_per_service_core: per(isRead, (r) => (r.cores.service > 0 ? r.service.requests_per_s / r.cores.service : null)),
    reads_per_replica_core: per(
      (r) => isRead(r) && r.configuration.endsWith('replica'),
      (r) => (r.cores.replica > 0.05 ? r.service.requests_per_s / r.cores.replica : null),
    ),
    answers_per_primary_core: per(
      (r) => r.scenario === 'answering loop',
      (r) => (r.cores.primary > 0 ? r.service.requests_per_s / 2 / r.cores.primary : null),
    ),
    connections_per_process:
      '10 pooled client connections to PgBouncer (DATABASE_URL) and 1 listener to the primary (DATABASE_DIRECT_URL); PgBouncer holds at most DEPLOY_PGBOUNCER_POOL (20) server connections, whatever the number of processes',
  }
}

function modelLines(m: Model): string[] {
  const line = (label: string, values: Record<string, number>) =>
    `- ${label}: ${
      Object.entries(values)
        .map(([k, v]) => `${v} (${k})`)
        .join(', ') || 'not measured'
    }`
  return [
    line('reads/s per service core', m.reads_per_service_core),
    line('reads/s per replica core', m.reads_per_replica_core),
    line('answers/s per primary core', m.answers_per_primary_core),
    `- connections per process: ${m.connections_per_process}`,
  ]
}

const number = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

function markdown(results: ScaleResult[]): string {
  const lines = [
    '| configuration | scenario | service req/s | limit req/s | ratio | p50 ms | p99 ms | errors / non-2xx | CPU cores: service / primary / replica / PgBouncer / HAProxy | check |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ]
  for (const r of results) {
    const c = r.cores
    lines.push(
      `| ${r.configuration} | ${r.scenario} | ${number(r.service.requests_per_s, 1)} | ${number(r.limit.requests_per_s)} | ${number(r.ratio, 4)}× | ${r.service.p50_ms} | ${r.service.p99_ms} | ${r.service.errors} / ${r.service.non_2xx} | ${c.service} / ${c.primary} / ${c.replica} / ${c.pgbouncer} / ${c.haproxy} | ${r.check ? (r.check.clean ? 'clean' : 'NOT clean') : ''} |`,
    )
  }
  return lines.join('\n')
}
