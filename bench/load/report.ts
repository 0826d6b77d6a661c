import type { LoadFigures } from './autocannon-runner.ts'

/** One scenario's figures: the service's and its limit's under the same load, and their ratio. */
export interface ScenarioResult {
  scenario: string
  path: string
  signed_in: boolean
  bytes: number
  service: LoadFigures
  limit: LoadFigures
  /** service requests/s over limit requests/s */
  ratio: number
  /** the service process's largest resident set sampled (every 100 ms) during its run */
  service_peak_rss_mib: number | null
  /** write scenarios: `civic-survey check` afterwards */
  check?: { clean: boolean; summary: string; seconds: number }
}

const number = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

export function markdownTable(results: ScenarioResult[]): string {
  const lines = [
    '| scenario | service req/s | limit req/s | ratio | p50 ms | p99 ms | errors / non-2xx | peak RSS MiB | check |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ]
  for (const r of results) {
    lines.push(
      `| ${r.scenario} | ${number(r.service.requests_per_s, 1)} | ${number(r.limit.requests_per_s)} | ${number(r.ratio, 4)}× | ${r.service.p50_ms} | ${r.service.p99_ms} | ${r.service.errors} / ${r.service.non_2xx} | ${r.service_peak_rss_mib ?? '–'} | ${r.check ? (r.check.clean ? 'clean' : 'NOT clean') : ''} |`,
    )
  }
  return lines.join('\n')
}
