import { availableParallelism } from 'node:os'
import path from 'node:path'

/** Checked, frozen configuration read from the environment. */
export interface Config {
  databaseUrl: string | null
  /** The connection that LISTENs and migrates: the primary itself, when DATABASE_URL is a pooler (DATABASE_DIRECT_URL). */
  databaseDirectUrl: string | null
  /** Read replicas of the primary (DATABASE_REPLICA_URLS); empty: every statement goes to DATABASE_URL. */
  databaseReplicaUrls: string[]
  /** A replica that has not caught up with the primary for longer than this is skipped (REPLICA_MAX_LAG_MS). */
  replicaMaxLagMs: number
  dataDir: string
  /** PostgreSQL server only: how long to wait for a connection, and the longest statement a request may run (0: no limit). */
  dbConnectTimeoutMs: number
  dbStatementTimeoutMs: number
  /** Repeated statements sent as named prepared statements (off by default behind a transaction pooler). */
  dbPreparedStatements: boolean
  /** How long `serve` and `demo` keep trying to reach the database at start-up before giving up. */
  dbStartupTimeoutS: number
  port: number
  host: string
  /** Prometheus metrics on an address of their own (METRICS_PORT, METRICS_HOST); port 0: none served, none recorded. */
  metrics: { port: number; host: string }
  publicUrl: string | null
  requireAppKey: boolean
  corsOrigins: string[]
  trustProxy: boolean
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  bodyLimit: number
  redisUrl: string | null
  /** Prefix of every Redis key, so deployments (or test runs) can share one Redis. */
  redisPrefix: string
  defaultAvatarUrl: string | null
  /** Signs one-time codes; when unset, one is generated once and kept in the database for every process. */
  secretKey: string | null
  /** Where e-mail links lead (the web app); the service's own address when unset. */
  webAppUrl: string | null
  smtpUrl: string | null
  mailFrom: string
  /** Where messages to the team (email_team) go. */
  teamEmail: string
  smsGatewayUrl: string | null
  smsGatewayToken: string | null
  socialProviders: SocialProviderConfig[]
  paymentWebhookSecret: string | null
  paymentCheckoutUrl: string | null
  rateLimits: RateLimits
  passwordHashing: PasswordHashing
  /** Disclosure control (src/disclosure/release.ts): the smallest group shown, and the fewest private answers a group counts. */
  minCellSize: number
  /** Census weights are capped at this multiple of their mean. */
  weightCap: number
  /** How long kept opinion groups are served before a request has them checked again (OPINION_GROUPS_REFRESH_MS). */
  opinionGroupsRefreshMs: number
  /** Answers read by one statement when opinion groups are computed; a larger scope is read in windows (OPINION_GROUPS_ANSWERS_PER_READ). */
  opinionGroupsAnswersPerRead: number
  /** Anonymous answers kept in memory (src/http/response-cache.ts). */
  responseCache: { maxBytes: number; graceMs: number; maxAgeMs: number }
  /** Sign-in tokens each process keeps in memory (src/access/credentials-cache.ts); 0 keeps none. */
  tokenCacheEntries: number
  /** Memory each process gives to signed-in people's own fields (src/access/own-records.ts); 0 keeps none. */
  ownRecordsBytes: number
  /**
   * How soon the answers' count deltas are folded after an answer, the sweep for others' (FIGURE_FOLD_*_MS), and
   * after how many folded rows a process vacuums the delta tables (FIGURE_FOLD_VACUUM_ROWS, 0 never).
   */
  figureFold: { delayMs: number; sweepMs: number; vacuumRows: number }
  /** How long a stopping process keeps serving after /readyz fails, for a balancer to notice (SHUTDOWN_DRAIN_MS). */
  shutdownDrainMs: number
  /** Live results streams (src/modules/live/): subscribers a process admits, coalescing interval, keep-alive. */
  live: { maxSubscribers: number; intervalMs: number; heartbeatMs: number }
  /** Push delivery (src/engines/notifications/push-delivery.ts) and its providers; a provider is off until configured. */
  push: {
    deliver: boolean
    fcm: { endpoint: string; serviceAccountFile: string | null }
    apns: { endpoint: string; keyFile: string | null; keyId: string; teamId: string; topic: string; caFile: string | null }
  }
}

/** An OpenID Connect provider in one of the four social slots of spec 2.2. */
export interface SocialProviderConfig {
  slot: 'social1' | 'social2' | 'social3' | 'social4'
  /** What clients send as `provider` (for example "facebook"); the slot name always works too. */
  name: string
  issuer: string
  clientId: string
  clientSecret: string
}

/** Requests per minute (docs/auth.md, Abuse limits). */
export interface RateLimits {
  anonymous: number
  appKey: number
  user: number
  ip: number
  /** sign-in attempts of every kind, per IP address: the ceiling on trying many accounts */
  signIn: number
  /** sign-in attempts on one account from one IP address: the limit on guessing its password */
  signInAccount: number
  /** register and check_email, per IP address: room for a crowd signing up behind one address */
  signUp: number
  /** operations that send mail or SMS to an address, per IP address and per user */
  sensitive: number
}

/** Each password hash holds 64 MiB while it runs, so only a few run at once and a few more may wait. */
export interface PasswordHashing {
  concurrency: number
  queue: number
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`)
  }
}

type Env = Record<string, string | undefined>

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(name, `expected a number from ${min} to ${max}, got ${value}`)
  return value
}

/**
 * Whether named prepared statements are sent by default: a separate direct URL means the serving URL is a
 * transaction pooler, where they do not survive from one transaction to the next.
 */
export const preparesStatementsBehind = (databaseUrl: string | null, directUrl: string | null | undefined): boolean =>
  !directUrl || directUrl === databaseUrl

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (/^(1|true|yes|on)$/i.test(raw)) return true
  if (/^(0|false|no|off)$/i.test(raw)) return false
  throw new ConfigError(name, `expected true or false, got "${raw}"`)
}

/** The address of a `Name <address>` mailbox, or the text itself. */
function mailbox(text: string): string {
  return /<([^>]+)>/.exec(text)?.[1] ?? text
}

function url(env: Env, name: string, protocols: string[]): string | null {
  const raw = env[name]
  if (raw === undefined || raw === '') return null
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    throw new ConfigError(name, `not a valid URL: "${raw}"`)
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${parsed.protocol}"`)
  }
  return raw.replace(/\/+$/, '')
}

/** DATABASE_REPLICA_URLS: comma-separated PostgreSQL URLs, only beside DATABASE_URL. */
function replicaUrls(env: Env, databaseUrl: string | null): string[] {
  const urls = (env.DATABASE_REPLICA_URLS ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean)
    .map((u) => url({ DATABASE_REPLICA_URLS: u }, 'DATABASE_REPLICA_URLS', ['postgres:', 'postgresql:'])!)
  if (urls.length > 0 && !databaseUrl) throw new ConfigError('DATABASE_REPLICA_URLS', 'needs DATABASE_URL (the primary)')
  if (new Set(urls).size !== urls.length) throw new ConfigError('DATABASE_REPLICA_URLS', 'a replica is listed twice')
  return urls
}

const SOCIAL_SLOTS = ['social1', 'social2', 'social3', 'social4'] as const

function socialProviders(env: Env): SocialProviderConfig[] {
  const providers: SocialProviderConfig[] = []
  for (const slot of SOCIAL_SLOTS) {
    const prefix = slot.toUpperCase()
    const issuer = url(env, `${prefix}_ISSUER`, ['http:', 'https:'])
    if (!issuer) continue
    const clientId = env[`${prefix}_CLIENT_ID`]
    if (!clientId) throw new ConfigError(`${prefix}_CLIENT_ID`, `required when ${prefix}_ISSUER is set`)
    const name = (env[`${prefix}_NAME`] || slot).toLowerCase()
    if (!/^[a-z0-9_-]+$/.test(name)) throw new ConfigError(`${prefix}_NAME`, `letters, digits, - and _ only, got "${name}"`)
    providers.push({ slot, name, issuer, clientId, clientSecret: env[`${prefix}_CLIENT_SECRET`] ?? '' })
  }
  return providers
}

function secret(env: Env, name: string): string | null {
  const raw = env[name]
  if (raw === undefined || raw === '') return null
  if (raw.length < 32) throw new ConfigError(name, 'must be at least 32 characters long')
  return raw
}

/** METRICS_PORT (0 or unset: off) and METRICS_HOST; never the API's own port, which answers /metrics with 404. */
function metricsAddress(env: Env, apiPort: number): { port: number; host: string } {
  const port = integer(env, 'METRICS_PORT', 0, 0, 65535)
  if (port !== 0 && port === apiPort)
    throw new ConfigError('METRICS_PORT', `must differ from PORT (${apiPort}): metrics are never served on the API's port`)
  const host = env.METRICS_HOST || '127.0.0.1'
  if (/\s|\//.test(host)) throw new ConfigError('METRICS_HOST', `expected a host name or address, got "${host}"`)
  return { port, host }
}

/** What a process holds beside the memory its settings bound: compiled routes and schemas, pools, room to collect. */
const OWN_HEAP_MIB = 160

/**
 * The V8 heap a serving process is given (`--max-old-space-size`): what its settings let it keep, kept answers and
 * people's records, plus its own. V8's default follows the machine's memory and collects lazily far below it, so
 * without a bound a crowd of new people grows the process well past what is alive (docs/operations.md, Memory).
 */
export function heapMiBFor(config: Config): number {
  return Math.ceil((config.responseCache.maxBytes + config.ownRecordsBytes) / (1024 * 1024)) + OWN_HEAP_MIB
}

/**
 * How much V8 lets the heap grow between full collections, set for serving processes. V8 grows it up to fourfold
 * for heaps of 2 GB or more, but only 1.3 to 2-fold below that: bounded to what it keeps, a process under load ran
 * a full collection every 70 ms for every 10 MB of garbage, at half the signed-in throughput (docs/operations.md,
 * Memory). Fourfold, within the bound, as large heaps have it.
 */
export const HEAP_GROWING_PERCENT = 300

/** Whether node was started with a flag of its own (on its command line, or in NODE_OPTIONS), such as `max-old-space-size`. */
export function nodeFlagGiven(name: string, execArgv: readonly string[] = process.execArgv, env: Env = process.env): boolean {
  return [...execArgv, env.NODE_OPTIONS ?? ''].some((flag) => flag.includes(name))
}

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel']
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`)
  }
  const corsOrigins = (env.CORS_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
  for (const origin of corsOrigins) {
    if (origin !== '*') url({ CORS_ORIGINS: origin }, 'CORS_ORIGINS', ['http:', 'https:'])
  }
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:'])
  const databaseDirectUrl = url(env, 'DATABASE_DIRECT_URL', ['postgres:', 'postgresql:'])
  if (databaseDirectUrl && !databaseUrl) throw new ConfigError('DATABASE_DIRECT_URL', 'needs DATABASE_URL')
  return Object.freeze({
    databaseUrl,
    databaseDirectUrl: databaseDirectUrl ?? databaseUrl,
    databaseReplicaUrls: replicaUrls(env, databaseUrl),
    replicaMaxLagMs: integer(env, 'REPLICA_MAX_LAG_MS', 1_000, 10, 600_000),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    dbConnectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    dbPreparedStatements: boolean(env, 'DB_PREPARED_STATEMENTS', preparesStatementsBehind(databaseUrl, databaseDirectUrl)),
    dbStartupTimeoutS: integer(env, 'DB_STARTUP_TIMEOUT_S', 60, 0, 86_400),
    port: integer(env, 'PORT', 8000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    metrics: metricsAddress(env, integer(env, 'PORT', 8000, 0, 65535)),
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:']),
    requireAppKey: boolean(env, 'REQUIRE_APP_KEY', false),
    corsOrigins,
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    logLevel,
    bodyLimit: integer(env, 'BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: env.REDIS_PREFIX || 'civic-survey:',
    defaultAvatarUrl: url(env, 'DEFAULT_AVATAR_URL', ['http:', 'https:']),
    secretKey: secret(env, 'SECRET_KEY'),
    webAppUrl: url(env, 'WEB_APP_URL', ['http:', 'https:']),
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: env.MAIL_FROM || 'Civic Survey <no-reply@civic-survey.invalid>',
    teamEmail: env.TEAM_EMAIL || mailbox(env.MAIL_FROM || 'team@civic-survey.invalid'),
    smsGatewayUrl: url(env, 'SMS_GATEWAY_URL', ['http:', 'https:']),
    smsGatewayToken: env.SMS_GATEWAY_TOKEN || null,
    socialProviders: socialProviders(env),
    paymentWebhookSecret: secret(env, 'PAYMENT_WEBHOOK_SECRET'),
    paymentCheckoutUrl: url(env, 'PAYMENT_CHECKOUT_URL', ['http:', 'https:']),
    rateLimits: {
      anonymous: integer(env, 'RATE_LIMIT_ANONYMOUS', 300, 1, 10_000_000),
      appKey: integer(env, 'RATE_LIMIT_APP_KEY', 3000, 1, 10_000_000),
      user: integer(env, 'RATE_LIMIT_USER', 600, 1, 10_000_000),
      ip: integer(env, 'RATE_LIMIT_IP', 3000, 1, 10_000_000),
      signIn: integer(env, 'RATE_LIMIT_SIGN_IN', 60, 1, 10_000_000),
      signInAccount: integer(env, 'RATE_LIMIT_SIGN_IN_ACCOUNT', 5, 1, 10_000_000),
      signUp: integer(env, 'RATE_LIMIT_SIGN_UP', 120, 1, 10_000_000),
      sensitive: integer(env, 'RATE_LIMIT_SENSITIVE', 10, 1, 10_000_000),
    },
    passwordHashing: {
      concurrency: integer(env, 'PASSWORD_HASH_CONCURRENCY', availableParallelism(), 1, 1024),
      queue: integer(env, 'PASSWORD_HASH_QUEUE', 64, 0, 100_000),
    },
    minCellSize: integer(env, 'MIN_CELL_SIZE', 5, 1, 1_000_000),
    weightCap: integer(env, 'WEIGHT_CAP', 5, 1, 1_000),
    opinionGroupsRefreshMs: integer(env, 'OPINION_GROUPS_REFRESH_MS', 5_000, 0, 86_400_000),
    opinionGroupsAnswersPerRead: integer(env, 'OPINION_GROUPS_ANSWERS_PER_READ', 500_000, 1, 100_000_000),
    responseCache: {
      maxBytes: integer(env, 'RESPONSE_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
      graceMs: integer(env, 'RESPONSE_CACHE_GRACE_MS', 250, 0, 1_000),
      maxAgeMs: integer(env, 'RESPONSE_CACHE_MAX_AGE_MS', 10_000, 0, 3_600_000),
    },
    tokenCacheEntries: integer(env, 'TOKEN_CACHE_ENTRIES', 50_000, 0, 10_000_000),
    ownRecordsBytes: integer(env, 'OWN_RECORDS_MB', 96, 0, 65_536) * 1024 * 1024,
    shutdownDrainMs: integer(env, 'SHUTDOWN_DRAIN_MS', 0, 0, 600_000),
    figureFold: {
      delayMs: integer(env, 'FIGURE_FOLD_DELAY_MS', 50, 0, 3_600_000),
      sweepMs: integer(env, 'FIGURE_FOLD_SWEEP_MS', 1_000, 10, 3_600_000),
      vacuumRows: integer(env, 'FIGURE_FOLD_VACUUM_ROWS', 1_000, 0, 100_000_000),
    },
    live: {
      maxSubscribers: integer(env, 'LIVE_MAX_SUBSCRIBERS', 20_000, 0, 1_000_000),
      intervalMs: integer(env, 'LIVE_INTERVAL_MS', 250, 0, 1_000),
      heartbeatMs: integer(env, 'LIVE_HEARTBEAT_MS', 15_000, 100, 300_000),
    },
    push: {
      deliver: boolean(env, 'PUSH_DELIVERY', true),
      fcm: {
        endpoint: url(env, 'FCM_ENDPOINT', ['http:', 'https:']) ?? 'https://fcm.googleapis.com',
        serviceAccountFile: env.FCM_SERVICE_ACCOUNT_FILE || null,
      },
      apns: {
        endpoint: url(env, 'APNS_ENDPOINT', ['https:']) ?? 'https://api.push.apple.com',
        keyFile: env.APNS_KEY_FILE || null,
        keyId: env.APNS_KEY_ID || '',
        teamId: env.APNS_TEAM_ID || '',
        topic: env.APNS_TOPIC || '',
        caFile: env.APNS_CA_FILE || null,
      },
    },
  })
}
