import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { freePort } from './free-port.ts'
import { PROMETHEUS } from './metrics.ts'

/** A real Prometheus server of the test's own: its config, its storage and its port, all temporary. */
export interface PrometheusServer {
  url: string
  output(): string
  /** An instant query's vector, as { labels, value } pairs. */
  query(expression: string): Promise<{ metric: Record<string, string>; value: number }[]>
  /** The scrape target of `job`: its health and when its last scrape started (seconds since the epoch). */
  target(job: string): Promise<{ health: string; lastScrape: number; lastError: string } | undefined>
  stop(): Promise<void>
}

/** Prometheus scraping each target every second under the job name given. */
export async function startPrometheus(job: string, targets: string[]): Promise<PrometheusServer> {
  if (!fs.existsSync(PROMETHEUS)) throw new Error(`no Prometheus at ${PROMETHEUS}: apt-get install -y --no-install-recommends prometheus`)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'civic-prometheus-'))
  const config = path.join(dir, 'prometheus.yml')
  fs.writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      `  - job_name: ${job}`,
      '    static_configs:',
      `      - targets: [${targets.map((target) => `'${target}'`).join(', ')}]`,
      '',
    ].join('\n'),
  )
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  let text = ''
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  child.stdout!.on('data', (chunk) => (text += chunk))
  child.stderr!.on('data', (chunk) => (text += chunk))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(killer)
    }
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const api = async (pathAndQuery: string) => {
    const response = await fetch(`${url}${pathAndQuery}`)
    const body = (await response.json()) as { status: string; data: any; error?: string }
    if (body.status !== 'success') throw new Error(`Prometheus ${pathAndQuery}: ${body.error ?? response.status}`)
    return body.data
  }
  try {
    const deadline = Date.now() + 60_000
    while ((await fetch(`${url}/-/ready`).catch(() => null))?.status !== 200) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`Prometheus did not start:\n${text}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  } catch (error) {
    await stop()
    throw error
  }
  return {
    url,
    output: () => text,
    async query(expression) {
      const data = await api(`/api/v1/query?query=${encodeURIComponent(expression)}`)
      return (data.result as { metric: Record<string, string>; value: [number, string] }[]).map((r) => ({
        metric: r.metric,
        value: Number(r.value[1]),
      }))
    },
    async target(name) {
      const data = await api('/api/v1/targets?state=active')
      const found = (
        data.activeTargets as { labels: Record<string, string>; health: string; lastScrape: string; lastError: string }[]
      ).find((t) => t.labels.job === name)
      return found && { health: found.health, lastScrape: Date.parse(found.lastScrape) / 1000, lastError: found.lastError }
    },
    stop,
  }
}
