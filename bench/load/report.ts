import fs from 'node:fs'
import type { LoadFigures } from './autocannon-runner.ts'

/** One scenario's figures: the service's and its limit's under the same load, and their ratio. */
export interface ScenarioResult {
  scenario: string
  path: string
  signed_in: boolean
  /** Whether the requests carried the application key (as the clients' do). */
  app_key: boolean
  /** The ratio the scenario should reach, and whether it did. */
  target?: number
  met?: boolean
  /** The peak resident memory the service should stay under during the run (MiB), and whether it did. */
  rss_target_mib?: number
  rss_met?: boolean
  /** What made the load: autocannon, or wrk (reads only, with --generator wrk where it is installed). */
  generator: 'autocannon' | 'wrk'
  /** A crowd's size: each of them read once before the run. */
  people?: number
  bytes: number
  /** the scenario's own connections, where it has them (otherwise the run's) */
  connections?: number
  service: LoadFigures
  limit: LoadFigures
  /** service requests/s over limit requests/s */
  ratio: number
  /** the service process's largest resident set sampled (every 100 ms) during its run */
  service_peak_rss_mib: number | null
  /** CPU used during the service's run, in cores: the service process, and the PostgreSQL server's processes */
  service_cores?: number | null
  database_cores?: number
  /** write scenarios: answer calls waiting on another answer's lock, sampled during the service's run (lock-waits.ts) */
  lock_waits?: { samples: number; share: number; same_question?: number; waiting: number; active: number; events?: Record<string, number> }
  /** write scenarios: `civic-survey check` afterwards */
  check?: { clean: boolean; summary: string; seconds: number }
}

const number = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

export function markdownTable(results: ScenarioResult[]): string {
  const lines = [
    '| scenario | key | signed in | service req/s | limit req/s | ratio | target | p50 ms | p99 ms | errors / non-2xx | peak RSS MiB | CPU cores: service / database | answers waiting on another answer: share of samples (on the same question), mean | check |',
    '| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ]
  for (const r of results) {
    const targets = [
      ...(r.target === undefined ? [] : [`≥ ${r.target}×: ${r.met ? 'met' : '**not met**'}`]),
      ...(r.rss_target_mib === undefined ? [] : [`RSS < ${r.rss_target_mib} MiB: ${r.rss_met ? 'met' : '**not met**'}`]),
    ]
    const target = targets.join('; ')
    lines.push(
      `| ${r.scenario} | ${r.app_key ? 'keyed' : 'no key'} | ${r.signed_in ? 'yes' : 'no'} | ${number(r.service.requests_per_s, 1)} | ${number(r.limit.requests_per_s)} | ${number(r.ratio, 4)}× | ${target} | ${r.service.p50_ms} | ${r.service.p99_ms} | ${r.service.errors} / ${r.service.non_2xx} | ${r.service_peak_rss_mib ?? '–'} | ${r.service_cores ?? '–'} / ${r.database_cores ?? '–'} | ${r.lock_waits ? `${r.lock_waits.share} (same question ${r.lock_waits.same_question ?? '–'}) / ${r.lock_waits.waiting} of ${r.lock_waits.active}` : ''} | ${r.check ? (r.check.clean ? 'clean' : 'NOT clean') : ''} |`,
    )
  }
  return lines.join('\n')
}

/** Which generator made the load of these rows: "load from wrk", or "load from wrk (writes: autocannon)". */
export function loadFrom(results: ScenarioResult[]): string {
  const reads = new Set(results.filter((r) => !r.check).map((r) => r.generator))
  const writes = new Set(results.filter((r) => r.check).map((r) => r.generator))
  const all = new Set([...reads, ...writes])
  if (all.size <= 1) return `load from ${[...all][0] ?? 'autocannon'}`
  return `load from ${[...reads].join(' and ')} (writes: ${[...writes].join(' and ')})`
}

/** Puts the run's table between the markers of docs/performance.md's "Latest run" (the rest of the page is prose). */
export function writeLatestTable(doc: string, report: Record<string, unknown>, results: ScenarioResult[], marker = 'load:latest'): boolean {
  const START = `<!-- ${marker}:start -->`
  const END = `<!-- ${marker}:end -->`
  const text = fs.readFileSync(doc, 'utf8')
  const start = text.indexOf(START)
  const end = text.indexOf(END)
  if (start < 0 || end < start) return false
  const loads = (key: string) => (report[key] as number[] | undefined)?.join(', ') ?? '?'
  const heading = [
    `${String(report.date).slice(0, 16).replace('T', ' ')} UTC, ${report.database}, ${report.cpus}, Node ${report.node}, ${loadFrom(results)}, `,
    `${report.heap_mib ? `the service's V8 heap at ${report.heap_mib} MiB, ` : ''}${report.connections} connections, ${report.duration_s} s per run; load average ${loads('load_average_start')} at the `,
    `start, ${loads('load_average_end')} at the end.`,
  ].join('')
  const section = `${START}
${heading}

${markdownTable(results)}
${END}`
  fs.writeFileSync(doc, text.slice(0, start) + section + text.slice(end + END.length))
  return true
}
