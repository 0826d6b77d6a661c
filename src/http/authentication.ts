import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Caller } from '../core/caller.ts'
import { ApiError, AuthenticationFailed } from '../core/errors.ts'
import { credentialsRepository } from '../access/credentials.repository.ts'
import type { AppKeyStanding, CredentialsCache } from '../access/credentials-cache.ts'
import type { UseMarks } from '../access/use-marks.ts'
import { hashSecret } from '../core/secrets.ts'
import { browsableCookieToken } from './browsable/session.ts'
import { lightHook } from './hooks.ts'

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null
    appKeyId: number | null
  }
  interface FastifyInstance {
    credentialsCache: CredentialsCache
    useMarks: UseMarks
  }
}

const APP_KEY_PARAMETER = 'AppAuthorization'

function appKeyOf(request: FastifyRequest): string | null {
  const header = request.headers['appauthorization']
  if (typeof header === 'string' && header) return header
  const query = request.query as Record<string, unknown> | undefined
  const fromQuery = query?.[APP_KEY_PARAMETER]
  if (typeof fromQuery === 'string' && fromQuery) return fromQuery
  return null
}

/** The application key's standing, kept in memory once looked up (CredentialsCache); undefined when unknown. */
async function lookUpAppKey(app: FastifyInstance, key: string): Promise<AppKeyStanding | undefined> {
  const changes = app.credentialsCache.changes
  const row = await credentialsRepository(app.db).appKey(hashSecret(key))
  if (!row) return undefined
  const standing = { id: row.id, revoked_at: row.revoked_at, markedAt: 0 }
  app.credentialsCache.keepAppKey(key, standing, changes)
  return standing
}

/** The token from `Authorization: Token <key>` (or Bearer), with DRF's messages for malformed headers. */
function tokenOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization
  if (!header) return null
  const parts = header.trim().split(/\s+/)
  const scheme = parts[0]?.toLowerCase()
  if (scheme !== 'token' && scheme !== 'bearer') return null
  if (parts.length === 1) throw AuthenticationFailed('Invalid token header. No credentials provided.')
  if (parts.length > 2) throw AuthenticationFailed('Invalid token header. Token string should not contain spaces.')
  return parts[1]
}

/**
 * Identifies the application and the user of every request before routing decides anything,
 * as DRF does: a bad credential fails even on a public resource.
 */
export function registerAuthentication(app: FastifyInstance): void {
  app.decorateRequest('caller', null)
  app.decorateRequest('appKeyId', null)
  // Synchronous while the key and the token are kept: no promise on the path of most requests.
  app.addHook(
    'onRequest',
    lightHook((request) => identify(app, request)),
  )
}

function identify(app: FastifyInstance, request: FastifyRequest): void | Promise<void> {
  if (request.routeOptions.config.probe) return // health probes need no key, and must not touch the database
  const appKey = appKeyOf(request)
  if (appKey) {
    const kept = app.credentialsCache.appKey(appKey)
    if (kept) return admitApplication(app, request, kept)
    return lookUpAppKey(app, appKey).then((key) => admitApplication(app, request, key))
  }
  if (app.config.requireAppKey)
    throw new ApiError(401, { detail: `An application key is required: send it as the ${APP_KEY_PARAMETER} query parameter or header.` })
  return identifyPerson(app, request)
}

function admitApplication(app: FastifyInstance, request: FastifyRequest, key: AppKeyStanding | undefined): void | Promise<void> {
  if (!key || key.revoked_at) throw new ApiError(401, { detail: 'Invalid or revoked application key.' })
  request.appKeyId = key.id
  // A use is recorded at most once a minute per key and process (audits, not accounting), after the answer.
  const now = performance.now()
  if (key.markedAt === 0 || now - key.markedAt > 60_000) {
    key.markedAt = now
    app.useMarks.appKey(key.id)
  }
  return identifyPerson(app, request)
}

function identifyPerson(app: FastifyInstance, request: FastifyRequest): void | Promise<void> {
  const header = tokenOf(request)
  // The browsable pages' cookie, honoured only where browsableCookieToken says; a stale one reads as signed out.
  const fromCookie = header ? null : browsableCookieToken(request)
  const token = header ?? fromCookie
  if (!token) return
  const kept = app.credentialsCache.get(token)
  if (kept) return admitPerson(app, request, kept, fromCookie !== null)
  return app.credentialsCache
    .lookUp(token, () => credentialsRepository(app.db).signIn(hashSecret(token)))
    .then((row) => admitPerson(app, request, row, fromCookie !== null))
}

type SignedIn = NonNullable<ReturnType<CredentialsCache['get']>>

function admitPerson(app: FastifyInstance, request: FastifyRequest, row: SignedIn | undefined, fromCookie: boolean): void {
  if (fromCookie && (!row || row.revoked_at || !row.is_active || row.is_deleted)) return
  if (!row || row.revoked_at) throw AuthenticationFailed('Invalid token.')
  if (!row.is_active || row.is_deleted) throw AuthenticationFailed('User inactive or deleted.')
  request.caller = { id: row.id, isStaff: row.is_staff, tokenId: row.token_id }
  if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > 60_000) {
    row.last_used_at = new Date()
    app.useMarks.token(row.token_id)
  }
}
