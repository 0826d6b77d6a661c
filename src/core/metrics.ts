import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

/**
 * The process's metrics in Prometheus's text format (docs/operations.md, Metrics). Every serving process keeps its
 * own registry, served on its own address (METRICS_PORT) and scraped by Prometheus one process at a time; nothing
 * here is shared between processes. The modules record through the small functions below and never see
 * prom-client; while metrics are off (METRICS_PORT unset) each of them returns at once.
 */

export const registry = new Registry()

let enabled = false

/** Whether this process records metrics (METRICS_PORT set): the HTTP hooks are registered only then. */
export function metricsEnabled(): boolean {
  return enabled
}

/**
 * Starts recording, once per process: the service's own metrics and prom-client's default ones (process memory, CPU,
 * file descriptors, event-loop delay, garbage collection) under their standard names (`process_*`, `nodejs_*`), as
 * dashboards and rules written for any Node.js process expect them.
 */
export function enableMetrics(): void {
  if (enabled) return
  enabled = true
  collectDefaultMetrics({ register: registry })
  // Every series of a fixed set of labels starts at 0, so rate() and increase() count its first events too, and
  // rules need no `or vector(0)`.
  for (const series of [keptHit, keptMiss, keptBypass, ...Object.values(credentialSeries).flatMap((c) => [c.hit, c.miss])]) series.inc(0)
  for (const kind of ANSWER_KINDS) {
    for (const outcome of ['first', 'replaced'] as const) answers.inc({ kind, outcome }, 0)
    for (const change of ['edited', 'withdrawn'] as const) answerChanges.inc({ kind, change }, 0)
    for (const reason of ANSWER_REFUSALS) answerRefusals.inc({ kind, reason }, 0)
  }
  for (const result of ['computed', 'unchanged', 'failed'] as const) opinionGroupRecomputes.inc({ result }, 0)
  for (const channel of ['fcm', 'apns'] as const) for (const outcome of DELIVERY_OUTCOMES) deliveries.inc({ channel, outcome }, 0)
}

/** The text Prometheus scrapes, and its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() }
}

// What the gauges read at each scrape: whatever the running app registered (one app per serving process; tests may
// build several in one process, whose values add up).

/** A connection pool of the PostgreSQL server (`pg.Pool`'s counts). */
export interface PoolReading {
  /** `primary`, or a replica's host:port. */
  database: string
  total: number
  idle: number
  waiting: number
  max: number
}

export interface ReplicaReading {
  /** host:port */
  replica: string
  state: 'ok' | 'lagging' | 'down'
  /** null while down or never caught up */
  lagMs: number | null
}

export interface MetricSource {
  responseCache?: () => { entries: number; bytes: number }
  credentials?: () => { tokens: number; appKeys: number }
  pools?: () => readonly PoolReading[]
  replicas?: () => readonly ReplicaReading[]
  liveStreams?: () => number
}

const sources = new Set<MetricSource>()

/** Adds what a running app measures; the returned function takes it away (when the app closes). */
export function addMetricSource(source: MetricSource): () => void {
  sources.add(source)
  return () => void sources.delete(source)
}

function sum(read: (source: MetricSource) => number | undefined): number {
  let total = 0
  for (const source of sources) total += read(source) ?? 0
  return total
}

// HTTP

/** Request latencies from 2.5 ms (a kept answer) to 30 s (the statement timeout). */
const LATENCY_BUCKETS = [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
/** Statements a request runs: 0 for a kept answer, a few for most, dozens for a listing that queries per row. */
const STATEMENT_BUCKETS = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89]

const HTTP_LABELS = ['method', 'route', 'status_code'] as const

const httpRequests = new Counter({
  name: 'civic_http_requests_total',
  help: 'HTTP requests answered on the public port, by method, route pattern and status code.',
  labelNames: HTTP_LABELS,
  registers: [registry],
})

const httpDuration = new Histogram({
  name: 'civic_http_request_duration_seconds',
  help: 'Time from receiving an HTTP request to the end of its answer, by method, route pattern and status code.',
  labelNames: HTTP_LABELS,
  buckets: LATENCY_BUCKETS,
  registers: [registry],
})

const requestStatements = new Histogram({
  name: 'civic_http_request_db_statements',
  help: 'SQL statements an HTTP request ran.',
  buckets: STATEMENT_BUCKETS,
  registers: [registry],
})

/** The route label of a request that matched no route (404s of unknown paths, bad methods). */
export const UNMATCHED_ROUTE = '(unmatched)'

/** What one method, route and status code records into; made once and kept, so a request allocates nothing. */
export interface HttpSeries {
  observe(seconds: number): void
}

/** The series of requests answered with this method, route pattern (or UNMATCHED_ROUTE) and status code. */
export function httpSeries(method: string, route: string, statusCode: number): HttpSeries {
  const status = String(statusCode)
  const count = httpRequests.labels(method, route, status)
  const duration = httpDuration.labels(method, route, status)
  return {
    observe(seconds) {
      count.inc()
      duration.observe(seconds)
    },
  }
}

export function requestRanStatements(statements: number): void {
  requestStatements.observe(statements)
}

// Kept answers (src/http/response-cache.ts)

const keptAnswers = new Counter({
  name: 'civic_response_cache_requests_total',
  help:
    'Requests for an answer that may be kept in memory: hit (served from memory, possibly after waiting for another ' +
    "request's rebuild), miss (rebuilt by this request and kept), bypass (answered without the cache after waiting).",
  labelNames: ['result'] as const,
  registers: [registry],
})
const keptHit = keptAnswers.labels('hit')
const keptMiss = keptAnswers.labels('miss')
const keptBypass = keptAnswers.labels('bypass')

const cacheInvalidations = new Counter({
  name: 'civic_response_cache_invalidations_total',
  help: "Changes of the data that made every kept answer stale (change notices and this process's own writes).",
  registers: [registry],
})

new Gauge({
  name: 'civic_response_cache_entries',
  help: 'Answers, pieces and counts kept in memory.',
  registers: [registry],
  collect() {
    this.set(sum((source) => source.responseCache?.().entries))
  },
})

new Gauge({
  name: 'civic_response_cache_bytes',
  help: 'Bytes held by what is kept in memory (counted against RESPONSE_CACHE_MB).',
  registers: [registry],
  collect() {
    this.set(sum((source) => source.responseCache?.().bytes))
  },
})

export function keptAnswerLookedUp(result: 'hit' | 'miss' | 'bypass'): void {
  if (!enabled) return
  ;(result === 'hit' ? keptHit : result === 'miss' ? keptMiss : keptBypass).inc()
}

export function keptAnswersInvalidated(): void {
  if (enabled) cacheInvalidations.inc()
}

// Sign-in tokens and application keys (src/access/credentials-cache.ts)

const credentialLookups = new Counter({
  name: 'civic_credentials_cache_lookups_total',
  help: 'Lookups of a sign-in token (cache="token") or an application key (cache="app_key") in memory, by result.',
  labelNames: ['cache', 'result'] as const,
  registers: [registry],
})
const credentialSeries = {
  token: { hit: credentialLookups.labels('token', 'hit'), miss: credentialLookups.labels('token', 'miss') },
  app_key: { hit: credentialLookups.labels('app_key', 'hit'), miss: credentialLookups.labels('app_key', 'miss') },
}

new Gauge({
  name: 'civic_credentials_cache_entries',
  help: 'Sign-in tokens (cache="token") and application keys (cache="app_key") kept in memory.',
  labelNames: ['cache'] as const,
  registers: [registry],
  collect() {
    this.set(
      { cache: 'token' },
      sum((source) => source.credentials?.().tokens),
    )
    this.set(
      { cache: 'app_key' },
      sum((source) => source.credentials?.().appKeys),
    )
  },
})

export function credentialLookedUp(cache: 'token' | 'app_key', hit: boolean): void {
  if (enabled) credentialSeries[cache][hit ? 'hit' : 'miss'].inc()
}

// Databases (src/db/connect.ts, read-routing.ts, replicas.ts)

new Gauge({
  name: 'civic_db_pool_connections',
  help: 'Connections of the pool to each PostgreSQL server (database="primary" or a replica\'s host:port): in_use or idle.',
  labelNames: ['database', 'state'] as const,
  registers: [registry],
  collect() {
    this.reset()
    for (const source of sources)
      for (const pool of source.pools?.() ?? []) {
        this.inc({ database: pool.database, state: 'in_use' }, pool.total - pool.idle)
        this.inc({ database: pool.database, state: 'idle' }, pool.idle)
      }
  },
})

new Gauge({
  name: 'civic_db_pool_waiting_requests',
  help: 'Requests for a connection waiting because every connection of the pool is in use.',
  labelNames: ['database'] as const,
  registers: [registry],
  collect() {
    this.reset()
    for (const source of sources) for (const pool of source.pools?.() ?? []) this.inc({ database: pool.database }, pool.waiting)
  },
})

new Gauge({
  name: 'civic_db_pool_max_connections',
  help: 'The most connections the pool opens to each server.',
  labelNames: ['database'] as const,
  registers: [registry],
  collect() {
    this.reset()
    for (const source of sources) for (const pool of source.pools?.() ?? []) this.inc({ database: pool.database }, pool.max)
  },
})

new Gauge({
  name: 'civic_db_replica_lag_seconds',
  help: 'How long ago each read replica was last where the primary was (absent while the replica is down).',
  labelNames: ['replica'] as const,
  registers: [registry],
  collect() {
    this.reset()
    for (const source of sources)
      for (const replica of source.replicas?.() ?? [])
        if (replica.lagMs !== null) this.set({ replica: replica.replica }, replica.lagMs / 1000)
  },
})

const REPLICA_STATES = ['ok', 'lagging', 'down'] as const

new Gauge({
  name: 'civic_db_replica_state',
  help: 'Whether each read replica is ok (takes reads), lagging or down (skipped): 1 for its state, 0 for the others.',
  labelNames: ['replica', 'state'] as const,
  registers: [registry],
  collect() {
    this.reset()
    for (const source of sources)
      for (const replica of source.replicas?.() ?? [])
        for (const state of REPLICA_STATES) this.set({ replica: replica.replica, state }, replica.state === state ? 1 : 0)
  },
})

const readStatements = new Counter({
  name: 'civic_db_read_statements_total',
  help: 'With read replicas: statements of GET and HEAD requests, by where they ran (target="replica" or "primary").',
  labelNames: ['target'] as const,
  registers: [registry],
})
const readOnReplica = readStatements.labels('replica')
const readOnPrimary = readStatements.labels('primary')

export function readStatementsRouted(onReplica: number, onPrimary: number): void {
  if (onReplica > 0) readOnReplica.inc(onReplica)
  if (onPrimary > 0) readOnPrimary.inc(onPrimary)
}

// Answers (src/modules/votes)

const ANSWER_KINDS = ['likert', 'choice'] as const
export type AnswerKindLabel = (typeof ANSWER_KINDS)[number]

/**
 * Why an answer was refused: the rules the database applies (src/modules/votes/vote-rules.ts), a lost race, a body
 * refused before the rules, no or a bad sign-in, a rate limit, anything else a 4xx.
 */
export const ANSWER_REFUSALS = [
  'missing',
  'mcq',
  'not_mcq',
  'not_open',
  'closed',
  'collection',
  'value_required',
  'conflict',
  'invalid',
  'unauthenticated',
  'throttled',
  'other',
] as const
export type AnswerRefusalReason = (typeof ANSWER_REFUSALS)[number]

const answers = new Counter({
  name: 'civic_answers_total',
  help: "Answers recorded (likert and multiple choice), by kind and whether each was the person's first on the question or replaced one.",
  labelNames: ['kind', 'outcome'] as const,
  registers: [registry],
})

const answerChanges = new Counter({
  name: 'civic_answer_changes_total',
  help: 'Answers edited or withdrawn, by kind.',
  labelNames: ['kind', 'change'] as const,
  registers: [registry],
})

const answerRefusals = new Counter({
  name: 'civic_answer_refusals_total',
  help: 'Answers refused with a 4xx, by kind and reason.',
  labelNames: ['kind', 'reason'] as const,
  registers: [registry],
})

export function answerRecorded(kind: AnswerKindLabel, outcome: 'first' | 'replaced'): void {
  if (enabled) answers.inc({ kind, outcome })
}

export function answerChanged(kind: AnswerKindLabel, change: 'edited' | 'withdrawn'): void {
  if (enabled) answerChanges.inc({ kind, change })
}

export function answerRefused(kind: AnswerKindLabel, reason: AnswerRefusalReason): void {
  if (enabled) answerRefusals.inc({ kind, reason })
}

/** Why an error refuses an answer, as the code that threw it knows: read back when the refusal is counted. */
const refusalReasons = new WeakMap<object, AnswerRefusalReason>()

/** Marks an error with the reason of the refusal it answers; returns it. */
export function withRefusalReason<E extends object>(error: E, reason: AnswerRefusalReason): E {
  refusalReasons.set(error, reason)
  return error
}

/** The reason an error was marked with, if any. */
export function refusalReasonOf(error: unknown): AnswerRefusalReason | undefined {
  return typeof error === 'object' && error !== null ? refusalReasons.get(error) : undefined
}

// Opinion groups (src/modules/opinion-groups)

const opinionGroupRecomputes = new Counter({
  name: 'civic_opinion_group_recomputes_total',
  help:
    "Recomputes of a scope's opinion groups: computed (the engine ran), unchanged (the answers were the kept run's, " +
    'which was kept as it is) or failed.',
  labelNames: ['result'] as const,
  registers: [registry],
})

const opinionGroupDuration = new Histogram({
  name: 'civic_opinion_group_recompute_duration_seconds',
  help: "Time a recompute of a scope's opinion groups took, reading the answers and keeping the run included.",
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  registers: [registry],
})

export function opinionGroupsRecomputed(result: 'computed' | 'unchanged' | 'failed', seconds: number): void {
  if (!enabled) return
  opinionGroupRecomputes.inc({ result })
  opinionGroupDuration.observe(seconds)
}

// Notification delivery (src/push)

const deliveries = new Counter({
  name: 'civic_notification_deliveries_total',
  help:
    'Pushes of notifications to devices, by channel (fcm, apns) and outcome: sent, gone (the device no longer ' +
    'exists), retry (refused or unreachable; stays due), logged (no provider configured).',
  labelNames: ['channel', 'outcome'] as const,
  registers: [registry],
})

const DELIVERY_OUTCOMES = ['sent', 'gone', 'retry', 'logged'] as const

export function notificationDelivered(channel: 'fcm' | 'apns', outcome: (typeof DELIVERY_OUTCOMES)[number]): void {
  if (enabled) deliveries.inc({ channel, outcome })
}

// Live result streams (src/modules/live)

new Gauge({
  name: 'civic_live_streams',
  help: 'Live result streams (server-sent events) this process holds open.',
  registers: [registry],
  collect() {
    this.set(sum((source) => source.liveStreams?.()))
  },
})
