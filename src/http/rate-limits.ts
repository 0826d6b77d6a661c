import { createHash } from 'node:crypto'
import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Redis } from 'ioredis'
import { PermissionDenied, Throttled } from '../core/errors.ts'
import { CounterStore, type Clock, type Count } from './rate-limits.store.ts'
import { lightHook, lightParsingHook } from './hooks.ts'

/** Every allowance is per minute, in fixed windows that start with a client's first request. */
const WINDOW_MS = 60_000

/**
 * The account operations with an allowance of their own per IP address, on top of the general ones
 * (docs/auth.md, Abuse limits, says why each allowance is the size it is):
 * - sign-in: attempts to prove who one is; per address they are the ceiling on trying many accounts, and each of
 *   them naming an account also counts against that account's small allowance (ACCOUNT_OF below);
 * - sign-up: registering and asking whether an address is taken, which a crowd behind one address does together;
 * - sensitive: operations that send mail or text messages to someone, counted per user too when signed in.
 */
export const LIMITED_OPERATIONS = {
  'sign-in': [
    ['POST', '/auth/login/'],
    ['POST', '/auth/password-reset-confirm/'],
    ['POST', '/auth/confirm_email/'],
    ['GET', '/auth/confirm_email/'],
    ['POST', '/auth/social_auth/'],
    ['POST', '/auth-yeti/'],
    ['POST', '/auth/token-only-social-auth/'],
    ['POST', '/auth/session-social-auth/'],
  ],
  'sign-up': [
    ['POST', '/auth/register/'],
    ['GET', '/auth/check_email/'],
  ],
  sensitive: [
    ['POST', '/auth/password-reset/'],
    ['POST', '/auth/onetime_signin/'],
    ['POST', '/auth/request_confirm_email/'],
    ['POST', '/auth/verification_sms_send/'],
    ['POST', '/auth/verification_add/'],
    ['POST', '/api/email_team/'],
  ],
} as const satisfies Record<string, ReadonlyArray<readonly [method: string, url: string]>>

type Tier = keyof typeof LIMITED_OPERATIONS

const tiers = new Map<string, Tier>(
  Object.entries(LIMITED_OPERATIONS).flatMap(([tier, operations]) =>
    operations.map(([method, url]) => [`${method} ${url}`, tier as Tier] as const),
  ),
)
/** "METHOD url" of the route, HEAD counted as GET (its Content-Length alone can tell a registered address). */
function operationOf(request: FastifyRequest): string | null {
  const url = request.routeOptions.url
  if (!url || !NAMED_URLS.has(url)) return null
  return `${request.method === 'HEAD' ? 'GET' : request.method} ${url}`
}

type Fields = Record<string, unknown> | undefined
const field = (source: unknown, name: string): string | null => {
  const value = (source as Fields)?.[name]
  return typeof value === 'string' && value.trim() ? value : null
}
/** Names and addresses as the service compares them; a "+" of an unencoded query arrives as a space. */
const named = (name: string | null) =>
  name === null ? null : `name:${createHash('sha256').update(name.trim().replace(/ /g, '+').toLowerCase()).digest('hex').slice(0, 32)}`
const signedIn = (request: FastifyRequest) => (request.caller ? `user:${request.caller.id}` : null)

/**
 * The account each password or code check tries, read from the validated input: a name or address (counted with
 * the client's address, so nobody can lock another person out from elsewhere), or the signed-in user when an
 * operation asks for the user's own password again.
 */
const ACCOUNT_OF: Record<string, (request: FastifyRequest) => string | null> = {
  'POST /auth/login/': (request) => named(field(request.body, 'username') ?? field(request.body, 'email')),
  'POST /auth/password-reset-confirm/': (request) => named(field(request.body, 'email')),
  'POST /auth/onetime_signin/': (request) => (field(request.body, 'code') === null ? null : named(field(request.body, 'email'))),
  'POST /auth/confirm_email/': (request) => named(field(request.body, 'email')),
  'GET /auth/confirm_email/': (request) => named(field(request.query, 'email')),
  'POST /auth/change-password/': signedIn,
  'POST /auth/deactivate-account/': signedIn,
  'POST /auth/delete-account/': signedIn,
  'DELETE /auth/delete-account/': signedIn,
}

/** The routes with a tier or an account to count: only their requests need their operation's name. */
const NAMED_URLS = new Set([...tiers.keys(), ...Object.keys(ACCOUNT_OF)].map((operation) => operation.split(' ')[1]))

/** Health probes (`config: { probe: true }`, src/modules/health/) are polled from one address all day: never counted. */
function isExempt(request: FastifyRequest): boolean {
  return request.routeOptions.config?.probe === true
}

/** A browser asking whether it may send the real request: answered without counting. */
function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined
}

/** What one count says: the allowance, what is left of it, and when its window ends. */
interface Outcome {
  max: number
  remaining: number
  ttl: number
  ttlInSeconds: number
  isExceeded: boolean
}
type Limiter = (request: FastifyRequest) => Outcome | Promise<Outcome>

const COUNTED = Symbol('rate limits counted')
type Counted = { [COUNTED]: Outcome[] | null }

/** `use` applied at once to a value, or once a promise of it settles. */
function then<T, R>(value: T | Promise<T>, use: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(use) : use(value)
}

/** Every value, at once when none is a promise. */
function allOf<T>(values: (T | Promise<T>)[]): T[] | Promise<T[]> {
  return values.some((value) => value instanceof Promise) ? Promise.all(values) : (values as T[])
}

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

export interface RateLimitOptions {
  /** The clock of in-memory counting; tests pass their own to move through minutes without waiting. */
  now?: Clock
}

/**
 * Abuse limits per application key, per user and per IP, and per account on sign-in (docs/auth.md). Register it
 * before authentication: the per-address count runs first, so requests with bad credentials count too; the key's,
 * user's and operation's counts run at preParsing, once authentication has named them; the per-account count at
 * preHandler, once the body names the account. They cover every route whenever it is added, unrouted paths (404)
 * and OPTIONS metadata, except health probes (`config: { probe: true }`) and CORS preflights.
 */
export async function registerRateLimits(app: FastifyInstance, options: RateLimitOptions = {}): Promise<void> {
  const { rateLimits, redisUrl, redisPrefix } = app.config
  const redis = redisUrl ? redisClient(redisUrl) : null
  const store = new CounterStore({ redis, namespace: `${redisPrefix}rate-limit:`, log: app.log, now: options.now })
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
  // Normalizing runs an IPv6 pattern: each address is normalized once while it keeps coming.
  const normalized = new Map<string, string>()
  const ipOf = (request: FastifyRequest) => {
    const ip = request.ip ?? 'unknown'
    let known = normalized.get(ip)
    if (known === undefined) {
      if (normalized.size >= 10_000) normalized.clear()
      normalized.set(ip, (known = normalizeIP(ip)))
    }
    return known
  }
  // Counted straight in the store, under the keys the plugin would use: its wrapper cost more than the count.
  const outcomeOf = (max: number, { current, ttl }: Count): Outcome => ({
    max,
    remaining: Math.max(0, max - current),
    ttl,
    ttlInSeconds: Math.ceil(ttl / 1000),
    isExceeded: current > max,
  })
  const limiter = (tier: string, max: number, key: (request: FastifyRequest) => string | number): Limiter => {
    // The store's key of each client of this tier, made once while the client keeps coming (not a new string each time).
    const keys = new Map<string | number, string>()
    const keyOf = (client: string | number) => {
      let known = keys.get(client)
      if (known === undefined) {
        if (keys.size >= 10_000) keys.clear()
        keys.set(client, (known = `${tier}:${client}`))
      }
      return known
    }
    return (request) => {
      const count = store.incr(keyOf(key(request)), WINDOW_MS)
      return count instanceof Promise ? count.then((known) => outcomeOf(max, known)) : outcomeOf(max, count)
    }
  }
  const perIp = limiter('ip', rateLimits.ip, ipOf)
  const anonymous = limiter('anonymous', rateLimits.anonymous, ipOf)
  const perAppKey = limiter('app-key', rateLimits.appKey, (request) => request.appKeyId!)
  const perUser = limiter('user', rateLimits.user, (request) => request.caller!.id)
  const perTier: Record<Tier, Limiter> = {
    'sign-in': limiter('sign-in:ip', rateLimits.signIn, ipOf),
    'sign-up': limiter('sign-up:ip', rateLimits.signUp, ipOf),
    sensitive: limiter('sensitive:ip', rateLimits.sensitive, ipOf),
  }
  const sensitiveUser = limiter('sensitive:user', rateLimits.sensitive, (request) => request.caller!.id)
  const accountKeys = new WeakMap<FastifyRequest, string>()
  const perAccount = limiter('sign-in:account', rateLimits.signInAccount, (request) => {
    const account = accountKeys.get(request)!
    return account.startsWith('user:') ? account : `${account}:${ipOf(request)}`
  })

  // What each counted request has used so far, so every answer describes the limit closest to refusing. Kept on
  // the request itself: a WeakMap entry per request was work for every garbage collection.
  app.decorateRequest(COUNTED, null)
  const counted = {
    get: (request: FastifyRequest) => (request as unknown as Counted)[COUNTED],
    set: (request: FastifyRequest, outcomes: Outcome[]) => void ((request as unknown as Counted)[COUNTED] = outcomes),
  }
  // Per address before authentication, so floods of bad tokens or keys are counted (and refused) too.
  app.addHook(
    'onRequest',
    lightHook((request, reply) => {
      if (isPreflight(request) || isExempt(request)) return
      return then(perIp(request), (outcome) => {
        counted.set(request, [outcome])
        answer(reply, [outcome])
      })
    }),
  )
  // The caller's counters once authentication (an onRequest hook registered after this one) knows them.
  app.addHook(
    'preParsing',
    lightParsingHook((request, reply) => {
      const earlier = counted.get(request)
      if (!earlier) return
      const own: Limiter[] = []
      // Signed-in people count per user instead: a crowd behind one address is many users, not one anonymous client.
      if (request.appKeyId === null && !request.caller) own.push(anonymous)
      if (request.caller) own.push(perUser)
      const operation = operationOf(request)
      const tier = operation ? tiers.get(operation) : undefined
      if (tier) own.push(perTier[tier])
      if (tier === 'sensitive' && request.caller) own.push(sensitiveUser)
      const finish = (outcomes: Outcome[]) => {
        const all = [...earlier, ...outcomes]
        counted.set(request, all)
        answer(reply, all)
      }
      return then(allOf(own.map((limit) => limit(request))), (outcomes) => {
        // The application key's last, which many callers share: a request refused already does not use it up.
        if (request.appKeyId === null || outcomes.some((outcome) => outcome.isExceeded)) return finish(outcomes)
        return then(perAppKey(request), (keyed) => finish([...outcomes, keyed]))
      })
    }),
  )
  // Guessing one account's password: counted once the validated input names the account.
  app.addHook(
    'preHandler',
    lightHook((request, reply) => {
      const earlier = counted.get(request)
      const operation = operationOf(request)
      const account = earlier && operation ? ACCOUNT_OF[operation]?.(request) : null
      if (!account) return
      accountKeys.set(request, account)
      return then(perAccount(request), (outcome) => answer(reply, [...earlier!, outcome]))
    }),
  )
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
  reply
    .header('x-ratelimit-limit', closest.max)
    .header('x-ratelimit-remaining', closest.remaining)
    .header('x-ratelimit-reset', closest.ttlInSeconds)
}
