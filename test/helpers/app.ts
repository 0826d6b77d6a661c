import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.ts'
import type { App } from '../../src/http/app-type.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import type { DatabaseHandle } from '../../src/db/connect.ts'
import { hashSecret, newSecret } from '../../src/http/authentication.ts'
import { databaseFromTemplate, type TemplateName } from './databases.ts'

export interface TestApp {
  app: FastifyInstance
  database: DatabaseHandle
  request(options: InjectOptions | string): Promise<LightMyRequestResponse>
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>
  json<T = any>(url: string, headers?: Record<string, string>): Promise<T>
  /** A token for an existing user, as a sign-in would give. */
  tokenFor(userId: number): Promise<string>
  close(): Promise<void>
}

export async function createTestApp(
  template: TemplateName = 'tiny',
  env: Record<string, string> = {},
  extraRoutes?: (app: App) => void,
): Promise<TestApp> {
  const database = await databaseFromTemplate(template)
  const config: Config = loadConfig({ LOG_LEVEL: 'silent', ...env })
  const app = await buildApp({ config, db: database.db, exposeQueryCount: true, extraRoutes })
  await app.ready()
  const request = (options: InjectOptions | string) => app.inject(options as InjectOptions)
  return {
    app,
    database,
    request,
    get: (url, headers = {}) => app.inject({ method: 'GET', url, headers }),
    async json(url, headers = {}) {
      const response = await app.inject({ method: 'GET', url, headers })
      if (response.statusCode !== 200) throw new Error(`GET ${url} answered ${response.statusCode}: ${response.body}`)
      return response.json()
    },
    async tokenFor(userId) {
      const token = newSecret()
      await database.db.insertInto('auth_tokens').values({ user_id: userId, key_hash: hashSecret(token), name: 'test' }).execute()
      return token
    },
    async close() {
      await app.close()
      await database.close()
    },
  }
}
