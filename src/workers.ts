import cluster, { type Worker } from 'node:cluster'
import { heapMiBFor, nodeFlagGiven, type Config } from './config.ts'

/**
 * `serve --workers N`: N processes share the port (node's cluster module hands each connection to one of them).
 * They share nothing else in memory, which the service never needs: every figure, session and rate-limit count
 * lives in PostgreSQL (and Redis, REDIS_URL, for the rate limits to be shared). Each keeps its own metrics, served on
 * a port of its own (METRICS_PORT plus its place). The primary only forks, replaces a worker that dies (in the same
 * place), and forwards SIGTERM/SIGINT so that each worker closes cleanly.
 */

/** A worker that dies this soon after starting counts towards giving up, so a broken start does not fork forever. */
const EARLY_EXIT_MS = 10_000

/** The environment variable that tells a worker its place (0 to N-1): its metrics port is METRICS_PORT plus it. */
const SLOT_VARIABLE = 'CIVIC_WORKER_SLOT'

export async function serveWorkers(config: Config, workers: number, start: (slot: number) => Promise<unknown>): Promise<void> {
  if (cluster.isWorker) {
    await start(Number(process.env[SLOT_VARIABLE] ?? 0))
    return
  }
  const line = (text: string) => process.stderr.write(`${text}\n`)
  let stopping = false
  let earlyExits = 0
  const startedAt = new Map<Worker, number>()
  // A worker that replaces another takes its place, and so its metrics port: Prometheus's targets stay as they are.
  const slots = new Map<Worker, number>()
  const fork = (slot: number) => {
    const worker = cluster.fork({ [SLOT_VARIABLE]: String(slot) })
    startedAt.set(worker, Date.now())
    slots.set(worker, slot)
  }
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0)
    const slot = slots.get(worker) ?? 0
    startedAt.delete(worker)
    slots.delete(worker)
    if (stopping) {
      if (startedAt.size === 0) process.exit(0)
      return
    }
    line(`worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another`)
    if (lived < EARLY_EXIT_MS && ++earlyExits > workers) {
      line(`workers keep exiting on start; stopping`)
      stopping = true
      for (const other of startedAt.keys()) other.process.kill('SIGTERM')
      if (startedAt.size === 0) process.exit(1)
      return
    }
    fork(slot)
  })
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      stopping = true
      if (startedAt.size === 0) process.exit(0)
      for (const worker of startedAt.keys()) worker.process.kill('SIGTERM')
    })
  }
  // Each worker gets a heap sized to what it keeps, unless the operator gave one.
  if (!nodeFlagGiven('max-old-space-size'))
    cluster.setupPrimary({ execArgv: [...process.execArgv, `--max-old-space-size=${heapMiBFor(config)}`] })
  for (let slot = 0; slot < workers; slot++) fork(slot)
  line(`serving on ${config.host}:${config.port} with ${workers} workers (primary ${process.pid})`)
  if (config.metrics.port > 0)
    line(`metrics of worker 1 to ${workers} on ${config.metrics.host}:${config.metrics.port} to ${config.metrics.port + workers - 1}`)
}
