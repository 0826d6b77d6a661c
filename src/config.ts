import path from 'node:path'

/** Checked, frozen configuration read from the environment. */
export interface Config {
  databaseUrl: string | null
  dataDir: string
  port: number
  host: string
  publicUrl: string | null
  requireAppKey: boolean
  corsOrigins: string[]
  trustProxy: boolean
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  bodyLimit: number
  redisUrl: string | null
  defaultAvatarUrl: string | null
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
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

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (/^(1|true|yes|on)$/i.test(raw)) return true
  if (/^(0|false|no|off)$/i.test(raw)) return false
  throw new ConfigError(name, `expected true or false, got "${raw}"`)
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

export function loadConfig(env: Env = process.env): Config {
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel']
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`)
  }
  const corsOrigins = (env.CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean)
  for (const origin of corsOrigins) {
    if (origin !== '*') url({ CORS_ORIGINS: origin }, 'CORS_ORIGINS', ['http:', 'https:'])
  }
  return Object.freeze({
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    port: integer(env, 'PORT', 8000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:']),
    requireAppKey: boolean(env, 'REQUIRE_APP_KEY', false),
    corsOrigins,
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    logLevel,
    bodyLimit: integer(env, 'BODY_LIMIT', 1024 * 1024, 1024, 64 * 1024 * 1024),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    defaultAvatarUrl: url(env, 'DEFAULT_AVATAR_URL', ['http:', 'https:']),
  })
}
