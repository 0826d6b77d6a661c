import cluster, { type Worker } from 'node:cluster'
import type { Config } from './config.ts'

/**
 * `serve --workers N`: N processes share the port (node's cluster module hands each connection to one of them).
 * They share nothing else in memory, which the service never needs: every figure, session and rate-limit count
 * lives in PostgreSQL (and Redis, REDIS_URL, for the rate limits to be shared). The primary only forks, replaces a
 * worker that dies, and forwards SIGTERM/SIGINT so that each worker closes cleanly.
 */

/** A worker that dies this soon after starting counts towards giving up, so a broken start does not fork forever. */
const EARLY_EXIT_MS = 10_000

export async function serveWorkers(config: Config, workers: number, start: () => Promise<unknown>): Promise<void> {
  if (cluster.isWorker) {
    await start()
    return
  }
  const line = (text: string) => process.stderr.write(`${text}\n`)
  let stopping = false
  let earlyExits = 0
  const startedAt = new Map<Worker, number>()
  const fork = () => startedAt.set(cluster.fork(), Date.now())
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0)
    startedAt.delete(worker)
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
    fork()
  })
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      stopping = true
      if (startedAt.size === 0) process.exit(0)
      for (const worker of startedAt.keys()) worker.process.kill('SIGTERM')
    })
  }
  for (let i = 0; i < workers; i++) fork()
  line(`serving on ${config.host}:${config.port} with ${workers} workers (primary ${process.pid})`)
}
