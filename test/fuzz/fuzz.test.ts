/**
 * Property-based fuzzing of every route the app declares: random, near-valid and malformed paths, queries,
 * bodies, content types and headers, generated from each route's schemas. Every answer must be below 500,
 * and a rejected request (4xx) must leave every row as it was.
 *
 * FUZZ_CASES (default 1500, at least one case for every route in `npm test`; `npm run fuzz` sends 100000)
 * cases split over the routes; FUZZ_SEED reproduces a run (by default one seed on PGlite and another on
 * PostgreSQL, so that CI's two suites send 3,000 different cases between them); FUZZ_ROUTE runs only
 * routes whose "METHOD /url" contains it and FUZZ_PATH replays one counterexample of that route;
 * FUZZ_KEEP_GOING=1 runs every case and lists every failing one instead of stopping at, and shrinking, the
 * first of each route.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { serverUrl } from '../helpers/databases.ts'
import { createFuzzTarget, type Finding, type FuzzTarget } from './harness.ts'
import type { RouteSpec } from './routes.ts'
import { describeRequest } from './verdict.ts'

const TOTAL_CASES = Number(process.env.FUZZ_CASES ?? 1_500)
const SEED = Number(process.env.FUZZ_SEED ?? (serverUrl() ? 20_261_126 : 20_261_123))
const ONLY_ROUTE = process.env.FUZZ_ROUTE
const REPLAY_PATH = process.env.FUZZ_PATH
const KEEP_GOING = process.env.FUZZ_KEEP_GOING === '1'
/** The 405 and OPTIONS fallbacks and HEAD copies share one code path each: a tenth of the cases is plenty. */
const GENERATED_SHARE = 0.1

let target: FuzzTarget
before(async () => {
  target = await createFuzzTarget()
})
after(() => target?.close())

/** Reads first, then writes, deletions last, so that early deletions do not starve the other routes of rows. */
function phase(route: RouteSpec): number {
  return route.method === 'DELETE' ? 2 : ['POST', 'PUT', 'PATCH'].includes(route.method) ? 1 : 0
}

/** Cases per route: every route gets at least one; the generated fallbacks share a tenth. */
function budget(selected: RouteSpec[], total: number): Map<RouteSpec, number> {
  const generated = selected.filter((route) => route.generated)
  const declared = selected.filter((route) => !route.generated)
  const generatedEach = generated.length ? Math.max(1, Math.floor((total * (declared.length ? GENERATED_SHARE : 1)) / generated.length)) : 0
  const rest = Math.max(declared.length, total - generatedEach * generated.length)
  const runs = new Map<RouteSpec, number>()
  for (const route of generated) runs.set(route, generatedEach)
  declared.forEach((route, i) => runs.set(route, Math.floor(rest / declared.length) + (i < rest % declared.length ? 1 : 0)))
  return runs
}

/** A seed per route from the run's seed, so one route's cases stay the same whichever routes run with it. */
function routeSeed(route: RouteSpec): number {
  let hash = SEED | 0
  for (const char of `${route.method} ${route.url}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193)
  return hash | 0
}

test('every route, any input: never a 5xx, a rejected request changes no row, errors DRF-shaped', async (context) => {
  const selected = target.routes
    // A replayed path belongs to one route: then FUZZ_ROUTE must name it exactly.
    .filter(
      (route) =>
        !ONLY_ROUTE || (REPLAY_PATH ? `${route.method} ${route.url}` === ONLY_ROUTE : `${route.method} ${route.url}`.includes(ONLY_ROUTE)),
    )
    .map((route, order) => ({ route, order }))
    .sort((a, b) => phase(a.route) - phase(b.route) || a.order - b.order)
    .map(({ route }) => route)
  assert.ok(selected.length > 0, `no route matches FUZZ_ROUTE=${ONLY_ROUTE}`)
  const runs = budget(selected, TOTAL_CASES)
  const findings: Finding[] = []
  const started = Date.now()
  for (const route of selected) {
    findings.push(
      ...(await target.fuzzRoute(route, { seed: routeSeed(route), numRuns: runs.get(route)!, path: REPLAY_PATH, keepGoing: KEEP_GOING })),
    )
  }

  const { stats } = target
  const seconds = (Date.now() - started) / 1000
  const statuses = [...stats.statuses]
    .sort()
    .map(([key, count]) => `${key} ${count}`)
    .join(', ')
  context.diagnostic(
    `${stats.cases} cases (${stats.concurrent} sent as concurrent duplicates) over ${selected.length} routes in ${seconds.toFixed(1)}s on ${serverUrl() ? 'PostgreSQL' : 'PGlite'}: ${(stats.cases / seconds).toFixed(0)} cases/s; seed ${SEED}`,
  )
  context.diagnostic(`answers: ${statuses}; exempt bookkeeping writes by rejected requests: ${stats.exemptWrites}`)
  for (const [reason, count] of stats.unavailable) context.diagnostic(`503 ×${count} ${reason}`)
  if (findings.length) assert.fail(report(findings))
})

/** Failures grouped by cause, each with its smallest request and the command that replays it. */
function report(findings: Finding[]): string {
  const byCause = new Map<string, Finding[]>()
  for (const finding of findings) {
    for (const problem of finding.failure.problems) {
      const list = byCause.get(problem.key) ?? []
      if (!list.includes(finding)) list.push(finding)
      byCause.set(problem.key, list)
    }
  }
  const lines = [
    `${findings.length} failing case${findings.length === 1 ? '' : 's'} in ${new Set(findings.map((f) => f.route)).size} routes, ${byCause.size} distinct causes (seed ${SEED}):`,
  ]
  for (const [cause, list] of byCause) {
    lines.push('', `== ${cause}: ${new Set(list.map((f) => f.route)).size} routes`)
    const shown = new Set<string>()
    for (const finding of list) {
      if (shown.has(finding.route)) continue
      shown.add(finding.route)
      const replay = finding.path !== null ? ` FUZZ_PATH='${finding.path}'` : ''
      lines.push(`- ${finding.route}   replay: FUZZ_SEED=${SEED} FUZZ_ROUTE='${finding.route}'${replay} npm run fuzz`)
      lines.push(`    input: ${finding.failure.request.kinds.join(', ') || 'valid-looking'}`)
      lines.push(`    ${describeRequest(finding.failure.request)}`)
      for (const problem of finding.failure.problems) lines.push(`    ${problem.text}`)
    }
  }
  return lines.join('\n')
}
