import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify'
import { applyMinCellSize } from './disclosure/batches.ts'
import cors from '@fastify/cors'
import cookie from '@fastify/cookie'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Kysely } from 'kysely'
import { figureFolder } from './engines/figures/figure-folding.ts'
import type { Config } from './config.ts'
import type { DatabaseHandle } from './db/connect.ts'
import { registerResponseCache, ResponseCache } from './http/response-cache.ts'
import type { Database } from './db/database.ts'
import { queryCounter } from './db/query-counter.ts'
import { newReadContext, readRouterOf, readRouting } from './db/read-routing.ts'
import { registerAuthentication } from './http/authentication.ts'
import { registerBodyParsers } from './http/body.ts'
import { registerQueryStrings } from './http/repeated-fields.ts'
import { registerHostCheck } from './http/host.ts'
import { registerBrowsableRendering } from './http/browsable.ts'
import { registerPermissions } from './http/permissions.ts'
import { registerRateLimits } from './http/rate-limits.ts'
import type { Clock } from './http/rate-limits.store.ts'
import { redactSecrets } from './core/redact.ts'
import { errorHandler, routerErrorHandler } from './http/errors.ts'
import { ID_LIST_FORMAT } from './core/integers.ts'
import { ResourceRegistry } from './http/resources.ts'
import { registerModules } from './modules/index.ts'
import { registerOpenApi } from './modules/api-docs/openapi.ts'
import type { App } from './http/app-type.ts'
import { compileInBackground, compilersOnFirstUse, sharedCompilers } from './http/schema-compilers.ts'
import { createMailer, type Mailer } from './mail/mailer.ts'
import type { PushSender } from './push/push-sender.ts'
import { createPushSender } from './push/providers.ts'
import { startPushDelivery } from './engines/notifications/push-delivery.ts'
import { LIVE_CHANNELS, LiveHub } from './modules/live/live-hub.ts'
import { noticesAfterCommit } from './db/notices-after-commit.ts'
import { UseMarks } from './access/use-marks.ts'
import { CREDENTIALS_CHANGED_CHANNEL, CredentialsCache } from './access/credentials-cache.ts'
import { liveFiguresRepository } from './modules/live/live-figures.repository.ts'
import { createSmsSender, type SmsSender } from './sms/sms-sender.ts'
import { OwnRecords } from './access/own-records.ts'
import { ownRecordsRepository } from './access/own-records.repository.ts'
import { redisOwnMarks, unsharedOwnMarks } from './access/own-marks.ts'
import { registerOwnRecords } from './http/own-records.ts'
import { KEPT_QUESTIONS_CHANNELS, KeptQuestions } from './modules/next-question/kept-questions.ts'
import { OWN_CHANGED_CHANNEL } from './db/data-changes.ts'
import { lightHook, lightSendHook } from './http/hooks.ts'
import { addMetricSource, enableMetrics, readStatementsRouted } from './core/metrics.ts'
import { registerHttpMetrics } from './http/metrics.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    db: Kysely<Database>
    mailer: Mailer
    sms: SmsSender
    push: PushSender
  }
}

export interface AppOptions {
  config: Config
  db: Kysely<Database>
  /** Adds X-Query-Count to every answer: how many SQL statements the request ran. */
  exposeQueryCount?: boolean
  /** Routes added beside the modules, under the same conventions (tests use it for the shared layer). */
  extraRoutes?: (app: App) => void
  /** Where log lines go; standard output when absent (tests read the log from their own stream). */
  logStream?: { write(line: string): void }
  /** The clock of in-memory rate-limit windows; tests move it instead of waiting minutes. */
  rateLimitClock?: Clock
  /** Announces committed changes of the data: without it no answer is kept in memory. Its pools are measured. */
  database?: Pick<DatabaseHandle, 'listenForChanges' | 'pools'>
  /** Compile each route's schemas when a request first needs them, not on start (tests serve few routes per app). */
  compileSchemasOnFirstUse?: boolean
  /** Compile them once the app listens, a few at a time between requests (and on first use before that): `serve`. */
  compileSchemasInBackground?: boolean
}

/**
 * How long a person's mark lives: past the longest a kept answer is served without being rebuilt (its maximum age
 * and the grace after a change), so a mark gone means no write a kept answer could miss.
 */
function ownMarksLifetime(config: Config): number {
  return 2 * (config.responseCache.maxAgeMs + config.responseCache.graceMs) + 1_000
}

/** Builds the service without listening, so tests can inject requests and close it. */
export async function buildApp({
  config,
  db,
  exposeQueryCount = false,
  extraRoutes,
  logStream,
  rateLimitClock,
  database,
  compileSchemasOnFirstUse = false,
  compileSchemasInBackground = false,
}: AppOptions): Promise<FastifyInstance> {
  const unwarmed = compileSchemasInBackground ? new Set<() => void>() : undefined
  const compilers = unwarmed ? compilersOnFirstUse(unwarmed) : compileSchemasOnFirstUse ? compilersOnFirstUse() : sharedCompilers
  const app = Fastify({
    // Every line passes through redactSecrets as written: URLs carry application keys, codes and tokens.
    logger: { level: config.logLevel, hooks: { streamWrite: redactSecrets }, ...(logStream ? { stream: logStream } : {}) },
    // One line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimit,
    // Push registration ids (FCM tokens run to about 160 characters) travel in the path.
    routerOptions: { maxParamLength: 4096 },
    trustProxy: config.trustProxy,
    // Id lists (`id__in`) are read by the shared integer reader before Ajv; Ajv only knows the format's name.
    ajv: {
      customOptions: {
        coerceTypes: 'array',
        allErrors: true,
        removeAdditional: true,
        useDefaults: true,
        formats: { [ID_LIST_FORMAT]: true },
      },
    },
    // A path the router cannot decode (`%FF`) or a parameter past its length names nothing: DRF's 404.
    frameworkErrors: routerErrorHandler,
    schemaController: { compilersFactory: compilers },
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.decorate('config', config)
  if (unwarmed) {
    app.addHook('onListen', async () => {
      void compileInBackground(unwarmed, (error) => app.log.error({ err: error }, 'a route schema does not compile'))
    })
    app.addHook('onClose', async () => unwarmed.clear())
  }
  app.decorate('db', db)
  // A database not reachable yet must not stop the start (requests then answer 503); k then stays as last stored.
  await applyMinCellSize(db, config.minCellSize).catch((error: Error) =>
    app.log.warn({ err: error }, 'MIN_CELL_SIZE not yet stored in the database; it keeps its previous value'),
  )
  app.decorate('mailer', createMailer(config, app.log))
  app.decorate('sms', createSmsSender(config, app.log))
  app.decorate('push', createPushSender(config.push, app.log))
  app.addHook('onClose', async () => {
    app.mailer.close()
    await app.push.close()
  })
  app.setErrorHandler(errorHandler)

  // Preflights are answered here, before authentication, so browsers on configured origins get through.
  // Only a request asking Access-Control-Request-Method is a preflight; other OPTIONS get the resource's metadata.
  const corsOptions = {
    origin: config.corsOrigins.includes('*') ? true : config.corsOrigins,
    allowedHeaders: ['Authorization', 'Content-Type', 'AppAuthorization', 'Accept'],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    maxAge: 86400,
  }
  // Without configured origins no browser on another origin is admitted: nothing to do on each request.
  if (config.corsOrigins.length > 0) {
    await app.register(
      cors,
      () => (request: FastifyRequest, callback: (error: Error | null, options: typeof corsOptions & { preflight: boolean }) => void) => {
        callback(null, { ...corsOptions, preflight: request.headers['access-control-request-method'] !== undefined })
      },
    )
  }

  // Metrics (METRICS_PORT, src/core/metrics.ts): every answer by route and status, with its latency.
  const measured = config.metrics.port > 0
  if (measured) {
    enableMetrics()
    registerHttpMetrics(app)
  }
  // Counting statements keeps a context through every promise of the request (async hooks): only where it is read,
  // by the metrics or by the X-Query-Count header.
  app.decorateRequest('statementCount', null)
  if (exposeQueryCount || measured) {
    app.addHook('onRequest', (request, reply, done) => {
      const count = { queries: 0 }
      request.statementCount = count
      queryCounter.run(count, done)
    })
  }
  if (exposeQueryCount) {
    app.addHook(
      'onSend',
      lightSendHook((request, reply) => {
        reply.header('x-query-count', String(request.statementCount?.queries ?? 0))
      }),
    )
  }
  // Read replicas (src/db/read-routing.ts): each request carries what decides where its statements go.
  const router = readRouterOf(db)
  if (router) {
    app.addHook('onRequest', (request, reply, done) => {
      readRouting.run(newReadContext(), done)
    })
    // Before the kept-answer hooks: the position of a request's writes is recorded before anything is dropped.
    app.addHook(
      'onSend',
      lightSendHook((request, reply) => {
        const context = readRouting.getStore()
        if (!context) return
        if (exposeQueryCount)
          reply.header('x-database-statements', `primary=${context.primaryStatements}, replica=${context.replicaStatements}`)
        if (!context.wrote) return
        context.wrote = false
        const keys = request.caller ? [`user:${request.caller.id}`] : [`ip:${request.ip}`]
        // Before the answer leaves, so the caller's next request, whichever process takes it, knows the position.
        return queryCounter
          .exit(() => router.recordWrite(keys))
          .then(
            () => undefined,
            (error: Error) => request.log.warn({ err: error }, 'the position of a write was not recorded'),
          )
      }),
    )
    app.addHook(
      'onResponse',
      lightHook(() => {
        const context = readRouting.getStore()
        if (!context) return
        context.ended = true
        if (measured && context.readOnly) readStatementsRouted(context.replicaStatements, context.primaryStatements)
      }),
    )
  }
  // The line is built only where it is written.
  const logsRequests = ['trace', 'debug', 'info'].includes(config.logLevel)
  if (logsRequests)
    app.addHook(
      'onResponse',
      lightHook((request, reply) => {
        request.log.info(
          { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
          `${request.method} ${request.url} ${reply.statusCode}`,
        )
      }),
    )

  // First of the hooks that read the query: a repeated parameter is its last value everywhere.
  registerQueryStrings(app)
  registerHostCheck(app)
  registerBrowsableRendering(app)
  // Cookies only carry the browsable pages' sign-in and CSRF value (src/http/browsable/session.ts), which reads them
  // when a page needs them: no parsing on every API request. Registered after the pages' rendering, so that its
  // onSend hook writes the cookies a page sets while it is rendered.
  await app.register(cookie, { hook: false })
  await registerRateLimits(app, { now: rateLimitClock })
  const credentialsCache = new CredentialsCache(config.tokenCacheEntries)
  app.decorate('credentialsCache', credentialsCache)
  const useMarks = new UseMarks(db)
  useMarks.onError = (error) => app.log.warn({ err: error }, 'the last use of tokens and application keys was not recorded')
  app.decorate('useMarks', useMarks)
  app.addHook('onClose', async () => useMarks.settled())
  if (database) {
    credentialsCache.notices = await database.listenForChanges(credentialsCache, [CREDENTIALS_CHANGED_CHANNEL])
    app.addHook('onClose', async () => credentialsCache.notices?.close())
  }
  registerAuthentication(app)
  if (router) {
    // Identifying the caller read the primary (a token revoked a moment ago is refused); from here a GET may read a
    // replica, at or past the caller's last write.
    app.addHook(
      'onRequest',
      lightHook((request) => {
        const context = readRouting.getStore()
        if (!context) return
        context.identified = true
        context.readOnly = (request.method === 'GET' || request.method === 'HEAD') && !request.routeOptions.config.probe
        context.keys = request.caller ? [`user:${request.caller.id}`, `ip:${request.ip}`] : [`ip:${request.ip}`]
      }),
    )
  }
  registerPermissions(app)
  registerBodyParsers(app)
  // Writers that leave their notices to the process (src/db/notices-after-commit.ts) have them sent before closing.
  const afterCommit = noticesAfterCommit(db)
  afterCommit.onError = (error) => app.log.error({ err: error }, 'change notices after commit were not sent')
  app.addHook('onClose', async () => afterCommit.settled())
  // Answers' count deltas join the stored counts soon after (src/engines/figures/figure-folding.ts).
  const folder = figureFolder(db, config.figureFold.delayMs, config.figureFold.vacuumRows)
  folder.onError = (error) => app.log.error({ err: error }, "folding the answers' count deltas failed; the next fold tries again")
  if (database) folder.sweepEvery(config.figureFold.sweepMs)
  app.addHook('onClose', async () => folder.close())
  // Once draining, every answer asks its client to reconnect (elsewhere, behind a balancer) for the next request.
  app.decorate('draining', { since: null as number | null })
  app.addHook(
    'onSend',
    lightSendHook((_request, reply) => {
      if (app.draining.since !== null) reply.header('connection', 'close')
    }),
  )
  const responseCache = new ResponseCache(config.responseCache)
  registerResponseCache(app, responseCache)
  if (database && config.responseCache.maxBytes > 0) {
    const changes = await database.listenForChanges(responseCache)
    app.addHook('onClose', async () => changes.close())
  }
  const marks = config.redisUrl ? redisOwnMarks(config.redisUrl, config.redisPrefix, ownMarksLifetime(config)) : unsharedOwnMarks
  const ownRecords = new OwnRecords({
    maxBytes: config.ownRecordsBytes,
    marks,
    load: (userId) => ownRecordsRepository(db).rows(userId),
    generation: () => responseCache.current,
    unseenChange: () => responseCache.changed(),
  })
  registerOwnRecords(app, ownRecords)
  app.addHook('onClose', async () => marks.close())
  if (database && config.ownRecordsBytes > 0) {
    // A token revoked or an account changed drops its person's record too (a revoked token keeps nothing alive).
    ownRecords.notices = await database.listenForChanges(ownRecords, [OWN_CHANGED_CHANNEL, CREDENTIALS_CHANGED_CHANNEL])
    app.addHook('onClose', async () => ownRecords.notices?.close())
  }

  const keptQuestions = new KeptQuestions()
  app.decorate('keptQuestions', keptQuestions)
  if (database && config.responseCache.maxBytes > 0) {
    keptQuestions.notices = await database.listenForChanges(keptQuestions, KEPT_QUESTIONS_CHANNELS)
    app.addHook('onClose', async () => keptQuestions.notices?.close())
  }

  // Live streams end before the server waits for its connections to close.
  const live = new LiveHub(liveFiguresRepository(db, config.minCellSize), config.live, app.log)
  app.decorate('live', live)
  app.addHook('preClose', async () => live.close())
  if (database) {
    const notices = await database.listenForChanges(live, LIVE_CHANNELS)
    app.addHook('onClose', async () => notices.close())
  }

  // Before any route: the OpenAPI document is built from the routes added after it.
  await registerOpenApi(app)
  const registry = new ResourceRegistry()
  registry.attach(app)
  registerModules(app)
  extraRoutes?.(app)
  registry.complete(app)
  if (measured) {
    const forget = addMetricSource({
      responseCache: () => responseCache.size,
      credentials: () => credentialsCache.size,
      pools: database?.pools,
      replicas: router
        ? () => router.status().map((replica) => ({ replica: replica.url, state: replica.state, lagMs: replica.lag_ms }))
        : undefined,
      liveStreams: () => live.subscribers,
    })
    app.addHook('onClose', async () => forget())
  }
  if (database && config.push.deliver) {
    const delivery = await startPushDelivery(db, database, app.push, app.log)
    app.addHook('onClose', async () => delivery.close())
  }
  return app
}
