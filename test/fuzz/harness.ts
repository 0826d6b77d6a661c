import { setTimeout as delay } from 'node:timers/promises'
import fc from 'fast-check'
import type { LightMyRequestResponse } from 'fastify'
import type { App } from '../../src/http/app-type.ts'
import { foldFigureDeltas } from '../../src/db/answer-gate.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { injectEventStream } from '../helpers/inject-event-stream.ts'
import { prepareFixtures } from './fixtures.ts'
import { abbreviate } from './nodes.ts'
import { caseArbitrary, render, type CaseSpec } from './requests.ts'
import { isExempt, recordRowChanges } from './row-changes.ts'
import { CASE_HEADER, instrumentNextApp, type RouteSpec } from './routes.ts'
import { CaseFailure, describeRequest, judge } from './verdict.ts'

const began = Date.now()
/** FUZZ_VERBOSE=1 follows the run route by route on stderr; 2 prints every request too. */
export function progress(text: string): void {
  if (process.env.FUZZ_VERBOSE) process.stderr.write(`[${((Date.now() - began) / 1000).toFixed(1)}s] ${text}\n`)
}

export interface Finding {
  route: string
  seed: number
  /** fast-check's path of the shrunk counterexample; null for the cases FUZZ_KEEP_GOING lists unshrunk. */
  path: string | null
  failure: CaseFailure
}

/**
 * The app under fuzz on its own copy of the tiny seed: its routes and schemas, the errors behind failed
 * requests, signed-in people, and a record of every row each case changes.
 */
export async function createFuzzTarget(extraRoutes?: (app: App) => void) {
  const probe = instrumentNextApp()
  let t: TestApp
  try {
    // The answers' count deltas are folded between cases, never by a timer during one: a fold is no case's doing.
    t = await createTestApp(
      'tiny',
      { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', FIGURE_FOLD_DELAY_MS: '3600000', FIGURE_FOLD_SWEEP_MS: '3600000' },
      extraRoutes,
    )
  } finally {
    probe.stop()
  }
  progress(`app built with ${probe.routes.length} routes`)
  const fixtures = await prepareFixtures(t, probe.routes)
  const changes = await recordRowChanges(t.database.db)
  progress(`fixtures ready; row changes recorded on ${changes.tables} tables`)
  const stats = { cases: 0, concurrent: 0, exemptWrites: 0, statuses: new Map<string, number>(), unavailable: new Map<string, number>() }
  let caseNumber = 0

  /**
   * An accepted write may go on after its answer (mail links insert their code in the background); its rows
   * must land before the next case, or a rejected request would be blamed for them. Waits until the record
   * stays still twice in a row.
   */
  async function settle(): Promise<void> {
    for (let quiet = 0, tries = 0; quiet < 2 && tries < 20; tries++) {
      await delay(3)
      quiet = (await changes.since()).length ? 0 : quiet + 1
    }
  }

  /** Sends one case (and its concurrent copies) and throws a CaseFailure when an answer breaks a rule. */
  async function runCase(route: RouteSpec, spec: CaseSpec): Promise<void> {
    const request = render(route, spec, fixtures.tokens())
    await foldFigureDeltas(t.database.db, true)
    await changes.since() // whatever the previous case's bookkeeping left is not this case's doing
    const ids = Array.from({ length: spec.copies }, () => String(++caseNumber))
    const options = (id: string) => ({
      method: request.method as 'GET',
      url: request.url,
      headers: { ...request.headers, [CASE_HEADER]: id },
      payload: request.payload,
    })
    const send = (id: string): Promise<LightMyRequestResponse> =>
      route.stream && route.method === 'GET' ? injectEventStream(t.app, options(id)) : t.app.inject(options(id))
    if (process.env.FUZZ_VERBOSE === '2') progress(describeRequest(request).slice(0, 400))
    let responses: LightMyRequestResponse[]
    try {
      responses = await Promise.all(ids.map(send))
    } catch (error) {
      throw new CaseFailure(request, [{ key: 'request failed', text: `the request itself failed: ${(error as Error).message}` }])
    }
    const rows = await changes.since()
    stats.cases++
    if (spec.copies > 1) stats.concurrent++
    stats.exemptWrites += rows.filter(isExempt).length
    for (const response of responses) {
      const key = [429, 503].includes(response.statusCode) ? String(response.statusCode) : `${String(response.statusCode)[0]}xx`
      stats.statuses.set(key, (stats.statuses.get(key) ?? 0) + 1)
      if (response.statusCode === 503) {
        const reason = `${route.method} ${route.url}: ${abbreviate(response.body, 100)}`
        stats.unavailable.set(reason, (stats.unavailable.get(reason) ?? 0) + 1)
      }
    }
    const problems = judge(
      request,
      responses,
      rows,
      ids.map((id) => probe.errors.get(id)),
    )
    ids.forEach((id) => probe.errors.delete(id))
    if (responses.some((response) => response.statusCode < 300) && route.method !== 'GET') {
      await settle()
      await fixtures.refresh()
    }
    if (problems.length) throw new CaseFailure(request, problems)
  }

  /**
   * Runs `numRuns` generated cases against one route. Stops at the first failure and shrinks it to the smallest
   * request that still fails, or with `keepGoing` runs them all and returns every failing one.
   */
  async function fuzzRoute(
    route: RouteSpec,
    options: { seed: number; numRuns: number; path?: string; keepGoing?: boolean },
  ): Promise<Finding[]> {
    const name = `${route.method} ${route.url}`
    const findings: Finding[] = []
    const property = fc.asyncProperty(caseArbitrary(route, fixtures.pools, fixtures.realIds(route)), async (spec) => {
      try {
        await runCase(route, spec)
      } catch (error) {
        if (!(error instanceof CaseFailure) || !options.keepGoing) throw error
        findings.push({ route: name, seed: options.seed, path: null, failure: error })
      }
    })
    const started = Date.now()
    const details = await fc.check(property, { seed: options.seed, numRuns: options.numRuns, path: options.path })
    progress(`${name}: ${details.numRuns} runs, ${details.numShrinks} shrinks, ${Date.now() - started}ms${details.failed ? ' FAILED' : ''}`)
    if (details.failed) {
      const failure =
        details.errorInstance instanceof CaseFailure
          ? details.errorInstance
          : new CaseFailure(render(route, details.counterexample![0], fixtures.tokens()), [
              { key: 'harness error', text: String(details.errorInstance) },
            ])
      findings.push({ route: name, seed: options.seed, path: details.counterexamplePath, failure })
    }
    return findings
  }

  return { t, routes: probe.routes, stats, fuzzRoute, close: () => t.close() }
}

export type FuzzTarget = Awaited<ReturnType<typeof createFuzzTarget>>
