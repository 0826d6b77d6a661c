import fs from 'node:fs'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp, type AppOptions } from '../../src/app.ts'
import type { App } from '../../src/http/app-type.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import type { DatabaseHandle } from '../../src/db/connect.ts'
import { hashSecret, newToken } from '../../src/core/secrets.ts'
import { lowerPasswordHashCostForTests, SCRYPT_COST } from '../../src/modules/accounts/passwords.ts'
import { databaseFromTemplate, type TemplateName } from './databases.ts'
import { scratchDataDir } from './scratch.ts'
import { EVENT_STREAM_PATH, injectEventStream } from './inject-event-stream.ts'

export interface TestApp {
  app: FastifyInstance
  database: DatabaseHandle
  request(options: InjectOptions | string): Promise<LightMyRequestResponse>
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>
  json<T = any>(url: string, headers?: Record<string, string>): Promise<T>
  /** A JSON write, signed in with `token` when given. */
  send(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, token?: string): Promise<LightMyRequestResponse>
  /** A token for an existing user, as a sign-in would give. */
  tokenFor(userId: number): Promise<string>
  close(): Promise<void>
}

export interface TestAppOptions extends Pick<AppOptions, 'logStream' | 'rateLimitClock'> {
  /** Keep the service's own rate limits instead of the raised ones tests use by default. */
  defaultLimits?: boolean
  /** Serve the database of another test app instead of a new copy of the template (closing leaves it open). */
  database?: DatabaseHandle
  /** Hash passwords at the service's own scrypt cost instead of the cheap one tests use by default. */
  realPasswordCost?: boolean
}

/** scrypt at 4 MiB instead of 64: the same code path, a few milliseconds a hash instead of a few hundred. */
export const TEST_SCRYPT_COST = 2 ** 12

export async function createTestApp(
  template: TemplateName = 'tiny',
  env: Record<string, string> = {},
  extraRoutes?: (app: App) => void,
  options: TestAppOptions = {},
): Promise<TestApp> {
  lowerPasswordHashCostForTests(options.realPasswordCost ? SCRYPT_COST : TEST_SCRYPT_COST)
  const database = options.database ?? (await databaseFromTemplate(template))
  // Limits high enough for a test file's requests from one address; the rate-limit tests set their own.
  const limits = {
    RATE_LIMIT_ANONYMOUS: '100000',
    RATE_LIMIT_USER: '100000',
    RATE_LIMIT_IP: '100000',
    RATE_LIMIT_SENSITIVE: '100000',
    RATE_LIMIT_APP_KEY: '100000',
    RATE_LIMIT_SIGN_IN: '100000',
    RATE_LIMIT_SIGN_IN_ACCOUNT: '100000',
    RATE_LIMIT_SIGN_UP: '100000',
  }
  const dataDir = scratchDataDir()
  // Answers are not kept in memory unless a test asks (RESPONSE_CACHE_MB): tests count statements and write
  // fixtures beside the service, whose notices arrive a moment later. Kept, they are rebuilt with no grace.
  const config: Config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    RESPONSE_CACHE_MB: '0',
    RESPONSE_CACHE_GRACE_MS: '0',
    // Tokens, keys and people's own fields likewise (fixtures change them in SQL, and the notice arrives a moment later).
    TOKEN_CACHE_ENTRIES: '0',
    OWN_RECORDS_MB: '0',
    // Pushes are delivered only where a test asks for it (test/notifications/push-delivery.test.ts).
    PUSH_DELIVERY: 'off',
    ...(options.defaultLimits ? {} : limits),
    ...env,
  })
  const { logStream, rateLimitClock } = options
  const app = await buildApp({
    config,
    db: database.db,
    database,
    exposeQueryCount: true,
    extraRoutes,
    logStream,
    rateLimitClock,
    compileSchemasOnFirstUse: true,
  })
  await app.ready()
  // An event stream stays open: it is read until its first event, then closed, as a client leaving does.
  const inject = (options: InjectOptions) =>
    (options.method ?? 'GET') === 'GET' && EVENT_STREAM_PATH.test(String(options.url))
      ? injectEventStream(app, options)
      : app.inject(options)
  const request = (options: InjectOptions | string) => inject(typeof options === 'string' ? { url: options } : options)
  return {
    app,
    database,
    request,
    get: (url, headers = {}) => inject({ method: 'GET', url, headers }),
    async json(url, headers = {}) {
      const response = await inject({ method: 'GET', url, headers })
      if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}: ${response.body}`)
      return response.json()
    },
    send(method, url, body, token) {
      const headers: Record<string, string> = token ? { authorization: `Token ${token}` } : {}
      if (body === undefined) return app.inject({ method, url, headers })
      return app.inject({ method, url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) })
    },
    async tokenFor(userId) {
      const token = newToken()
      await database.db
        .insertInto('auth_tokens')
        .values({ user_id: userId, key_hash: hashSecret(token), name: 'test' })
        .execute()
      return token
    },
    async close() {
      await app.close()
      if (!options.database) await database.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
