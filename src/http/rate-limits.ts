import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Redis } from 'ioredis'
import { PermissionDenied, Throttled } from './errors.ts'
import { CounterStore } from './rate-limits.store.ts'

/** Every allowance is per minute, in fixed windows that start with a client's first request. */
const WINDOW_MS = 60_000

/**
 * The operations an attacker would repeat to guess passwords, find registered addresses or send mail and SMS to
 * others. They share one stricter allowance per IP address (and per user when signed in), whichever of them is called.
 */
export const SENSITIVE_OPERATIONS: ReadonlyArray<readonly [method: string, url: string]> = [
  ['POST', '/auth/login/'],
  ['GET', '/auth/check_email/'],
  ['POST', '/auth/register/'],
  ['POST', '/auth/password-reset/'],
  ['POST', '/auth/password-reset-confirm/'],
  ['POST', '/auth/onetime_signin/'],
  ['POST', '/auth/confirm_email/'],
  ['GET', '/auth/confirm_email/'],
  ['POST', '/auth/request_confirm_email/'],
  ['POST', '/auth/verification_sms_send/'],
  ['POST', '/auth/verification_add/'],
  ['POST', '/auth/social_auth/'],
  ['POST', '/auth-yeti/'],
  ['POST', '/auth/token-only-social-auth/'],
  ['POST', '/auth/session-social-auth/'],
]

const sensitive = new Set(SENSITIVE_OPERATIONS.map(([method, url]) => `${method} ${url}`))

function isSensitive(request: FastifyRequest): boolean {
  const url = request.routeOptions.url
  if (!url) return false
  // HEAD runs the GET handler (its Content-Length alone can tell a registered address), so it counts as GET.
  const method = request.method === 'HEAD' ? 'GET' : request.method
  return sensitive.has(`${method} ${url}`)
}

/** A browser asking whether it may send the real request: answered without counting. */
function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>
type Outcome = Extract<Awaited<ReturnType<Limiter>>, { isAllowed: false }>

/** Shares counters between processes; tuned to fail fast, so a slow or absent Redis never holds requests up. */
function redisClient(url: string): Redis {
  return new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1_000,
    commandTimeout: 500,
    maxRetriesPerRequest: 1,
    // Without a connection, a count fails at once (and is taken in memory) instead of waiting for a reconnection.
    enableOfflineQueue: false,
    connectionName: 'civic-survey-rate-limits',
  })
}

async function connectRedis(app: FastifyInstance, redis: Redis, store: CounterStore): Promise<void> {
  redis.on('error', (error) => store.redisFailed(error))
  app.addHook('onClose', async () => {
    if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect())
    else redis.disconnect()
  })
  // A Redis down at start-up does not stop the service: the counts start in memory and move to Redis once it answers.
  await redis.connect().catch((error: unknown) => store.redisFailed(error))
}

/**
 * Abuse limits per application key, per user and per IP, stricter on the sensitive account operations
 * (docs/auth.md). Register it before authentication: the per-address count runs first, so requests with bad
 * credentials count too; the key's and user's counts run at preParsing, once authentication has named them.
 * Both cover every route whenever it is added, unrouted paths (404) and OPTIONS metadata.
 */
export async function registerRateLimits(app: FastifyInstance): Promise<void> {
  const { rateLimits, redisUrl, redisPrefix } = app.config
  const redis = redisUrl ? redisClient(redisUrl) : null
  const store = new CounterStore({ redis, namespace: `${redisPrefix}rate-limit:`, log: app.log })
  if (redis) await connectRedis(app, redis, store)
  await app.register(rateLimit, {
    // No limit of the plugin's own on every route: the hook below applies ours. A route may still declare
    // `config.rateLimit` for an extra limit of its own, counted in the same store and answered the same way.
    global: false,
    timeWindow: WINDOW_MS,
    store: store.pluginStore(),
    errorResponseBuilder: (request, context) => (context.ban ? PermissionDenied() : Throttled(context.ttl / 1000)),
  })

  // IPv6 addresses count per /64, the block one subscriber usually holds. A socket already gone has no address left.
  const ipOf = (request: FastifyRequest) => normalizeIP(request.ip ?? 'unknown')
  const limiter = (tier: string, max: number, key: (request: FastifyRequest) => string | number): Limiter =>
    app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: (request) => `${tier}:${key(request)}` })
  const perIp = limiter('ip', rateLimits.ip, ipOf)
  const anonymous = limiter('anonymous', rateLimits.anonymous, ipOf)
  const perAppKey = limiter('app-key', rateLimits.appKey, (request) => request.appKeyId!)
  const perUser = limiter('user', rateLimits.user, (request) => request.caller!.id)
  const sensitiveIp = limiter('sensitive:ip', rateLimits.sensitive, ipOf)
  const sensitiveUser = limiter('sensitive:user', rateLimits.sensitive, (request) => request.caller!.id)

  // Per address before authentication, so floods of bad tokens or keys are counted (and refused) too.
  const addressOutcome = new WeakMap<FastifyRequest, Outcome>()
  app.addHook('onRequest', async (request, reply) => {
    if (isPreflight(request)) return
    const outcome = (await perIp(request)) as Outcome
    addressOutcome.set(request, outcome)
    answer(reply, [outcome])
  })
  // The caller's counters once authentication (an onRequest hook registered after this one) knows them.
  app.addHook('preParsing', async (request, reply) => {
    const address = addressOutcome.get(request)
    if (!address) return
    const own: Limiter[] = []
    if (request.appKeyId === null) own.push(anonymous)
    if (request.caller) own.push(perUser)
    if (isSensitive(request)) {
      own.push(sensitiveIp)
      if (request.caller) own.push(sensitiveUser)
    }
    const outcomes = (await Promise.all(own.map((limit) => limit(request)))) as Outcome[]
    // The application key's last, which many callers share: a request refused already does not use it up.
    if (request.appKeyId !== null && !outcomes.some((outcome) => outcome.isExceeded)) {
      outcomes.push((await perAppKey(request)) as Outcome)
    }
    answer(reply, [address, ...outcomes])
  })
}

/**
 * The x-ratelimit-* headers describe the limit closest to refusing; past a limit, the answer is 429 with
 * Retry-After, waiting for the last of the exceeded limits to reset.
 */
function answer(reply: FastifyReply, outcomes: Outcome[]): void {
  const exceeded = outcomes.filter((outcome) => outcome.isExceeded)
  if (exceeded.length) {
    const longest = exceeded.reduce((a, b) => (b.ttl > a.ttl ? b : a))
    reply.header('x-ratelimit-limit', longest.max).header('x-ratelimit-remaining', 0).header('x-ratelimit-reset', longest.ttlInSeconds)
    throw Throttled(longest.ttl / 1000)
  }
  const closest = outcomes.reduce((a, b) => (b.remaining < a.remaining || (b.remaining === a.remaining && b.ttl > a.ttl) ? b : a))
  reply.header('x-ratelimit-limit', closest.max).header('x-ratelimit-remaining', closest.remaining).header('x-ratelimit-reset', closest.ttlInSeconds)
}
