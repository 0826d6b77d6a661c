import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { ensureBuilt } from '../shared.ts'

/** The child processes a load run talks to: the service itself and the limit servers. */
export interface Running {
  url: string
  process: ChildProcess
  stop: () => Promise<void>
}

const stopper = (child: ChildProcess) => () =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })

/**
 * `civic-survey serve` as a separate process on the bench database, quiet, with the rate limits out of the way
 * (every request of a load comes from one address and a few tokens), with the V8 heap given (MiB) when given.
 * Resolves once /healthz answers.
 */
export async function startService(env: Record<string, string>, port: number, heapMiB: number | null = null): Promise<Running> {
  const url = `http://127.0.0.1:${port}`
  // Something already answering there (another run's service) would be measured in place of this run's own.
  const taken = await fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  )
  if (taken) throw new Error(`port ${port} is already served (another load run?): choose another with --port`)
  // The compiled code, as production runs it.
  ensureBuilt()
  const limit = '10000000'
  // A heap sized to what the process keeps, as docs/operations.md advises (Memory); V8's own default otherwise.
  const heap = heapMiB === null ? [] : [`--max-old-space-size=${heapMiB}`]
  // BENCH_SERVICE_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it stops (node refuses the flag in
  // NODE_OPTIONS).
  const profile = process.env.BENCH_SERVICE_CPU_PROF
  if (profile) heap.push('--cpu-prof', `--cpu-prof-dir=${profile}`)
  // BENCH_SERVICE_WORKERS=<n>: n serving processes on the port (serve --workers), each with its own answer groups.
  const workers = process.env.BENCH_SERVICE_WORKERS
  const serve = workers ? ['serve', '--workers', workers] : ['serve']
  const child = spawn(process.execPath, [...heap, 'bin/civic-survey.js', ...serve], {
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ANONYMOUS: limit,
      RATE_LIMIT_APP_KEY: limit,
      RATE_LIMIT_USER: limit,
      RATE_LIMIT_IP: limit,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before answering`)
    try {
      if ((await fetch(`${url}/healthz`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM')
      throw new Error('the service did not answer /healthz within 120 s')
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return { url, process: child, stop: stopper(child) }
}

/** A server script of this folder in its own process, once it prints the port it listens on. */
async function startPortServer(script: string, args: string[], cleanup = () => {}): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL(script, import.meta.url).pathname, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const first = await readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()
  if (first.done || !/^\d+$/.test(first.value)) throw new Error(`${script} did not start`)
  const stop = stopper(child)
  return {
    url: `http://127.0.0.1:${first.value}`,
    process: child,
    stop: async () => {
      await stop()
      cleanup()
    },
  }
}

const scratchFile = (content: string | Buffer) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'civic-load-')), 'data')
  fs.writeFileSync(file, content)
  return { file, remove: () => fs.rmSync(path.dirname(file), { recursive: true, force: true }) }
}

/** A bare node:http server answering `body` with `contentType` from memory (limit-server.ts). */
export async function startLimitServer(body: Buffer, contentType: string): Promise<Running> {
  const scratch = scratchFile(body)
  return startPortServer('./limit-server.ts', [scratch.file, contentType], scratch.remove)
}

/** The write limit (write-limit-server.ts): node:http + pg, callers known by their tokens. */
export async function startWriteLimitServer(databaseUrl: string, users: Record<string, number>, poolSize: number): Promise<Running> {
  const scratch = scratchFile(JSON.stringify(users))
  return startPortServer('./write-limit-server.ts', [databaseUrl, scratch.file, String(poolSize)], scratch.remove)
}

/** Resident memory of a process in MiB, from /proc (Linux); null elsewhere. */
export function residentMiB(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) / 1024 : null
  } catch {
    return null
  }
}

/** Samples a process's resident memory every 100 ms until stopped; returns the peak seen (MiB). */
export function sampleResidentPeak(pid: number): () => number | null {
  let peak: number | null = residentMiB(pid)
  const timer = setInterval(() => {
    const now = residentMiB(pid)
    if (now !== null && (peak === null || now > peak)) peak = now
  }, 100)
  return () => {
    clearInterval(timer)
    return peak
  }
}

const TICKS_PER_S = 100

/** CPU seconds (user + system) a process has used, from /proc; null once it is gone. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S
  } catch {
    return null
  }
}

/** The same for a process and its children: the workers of serve --workers, alive for the whole run. */
function treeCpuSeconds(pid: number): number | null {
  const own = cpuSeconds(pid)
  if (own === null) return null
  let children: string[] = []
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
  } catch {
    // gone meanwhile
  }
  return children.reduce((sum, child) => sum + (treeCpuSeconds(Number(child)) ?? 0), own)
}

/** Every PostgreSQL server process of this machine (postmaster, backends, background workers). */
function postgresPids(): number[] {
  const pids: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

function postgresSeconds(): Map<number, number> {
  const seconds = new Map<number, number>()
  for (const pid of postgresPids()) {
    const used = cpuSeconds(pid)
    if (used !== null) seconds.set(pid, used)
  }
  return seconds
}

/**
 * Where the CPU went during a run, in cores (CPU seconds over wall seconds): the service process, and the database
 * server's processes (backends that ended during the run are missed, so that figure is a floor).
 */
export function sampleCpu(servicePid: number): () => { service_cores: number | null; database_cores: number } {
  const started = performance.now()
  const service = treeCpuSeconds(servicePid)
  const database = postgresSeconds()
  return () => {
    const wall = (performance.now() - started) / 1000
    const serviceNow = treeCpuSeconds(servicePid)
    let databaseUsed = 0
    for (const [pid, now] of postgresSeconds()) databaseUsed += now - (database.get(pid) ?? 0)
    return {
      service_cores: service === null || serviceNow === null ? null : Math.round(((serviceNow - service) / wall) * 100) / 100,
      database_cores: Math.round((databaseUsed / wall) * 100) / 100,
    }
  }
}
