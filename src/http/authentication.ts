import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Caller } from '../core/caller.ts'
import { ApiError, AuthenticationFailed } from '../core/errors.ts'
import { credentialsRepository } from '../access/credentials.repository.ts'
import type { AppKeyStanding, CredentialsCache } from '../access/credentials-cache.ts'
import { hashSecret } from '../core/secrets.ts'
import { browsableCookieToken } from './browsable/session.ts'

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null
    appKeyId: number | null
  }
  interface FastifyInstance {
    credentialsCache: CredentialsCache
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
async function knownAppKey(app: FastifyInstance, key: string): Promise<AppKeyStanding | undefined> {
  const kept = app.credentialsCache.appKey(key)
  if (kept) return kept
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
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.probe) return // health probes need no key, and must not touch the database
    const credentials = credentialsRepository(app.db)
    const appKey = appKeyOf(request)
    if (appKey) {
      const key = await knownAppKey(app, appKey)
      if (!key || key.revoked_at) throw new ApiError(401, { detail: 'Invalid or revoked application key.' })
      request.appKeyId = key.id
      // A use is recorded at most once a minute per key and process (audits, not accounting).
      const now = performance.now()
      if (key.markedAt === 0 || now - key.markedAt > 60_000) {
        key.markedAt = now
        await credentials.markAppKeyUsed(key.id)
      }
    } else if (app.config.requireAppKey) {
      throw new ApiError(401, { detail: `An application key is required: send it as the ${APP_KEY_PARAMETER} query parameter or header.` })
    }

    const header = tokenOf(request)
    // The browsable pages' cookie, honoured only where browsableCookieToken says; a stale one reads as signed out.
    const fromCookie = header ? null : browsableCookieToken(request)
    const token = header ?? fromCookie
    if (token) {
      const kept = app.credentialsCache.get(token)
      const changes = app.credentialsCache.changes
      const row = kept ?? (await credentials.signIn(hashSecret(token)))
      if (row && !kept) app.credentialsCache.keep(token, row, changes)
      if (fromCookie && (!row || row.revoked_at || !row.is_active || row.is_deleted)) return
      if (!row || row.revoked_at) throw AuthenticationFailed('Invalid token.')
      if (!row.is_active || row.is_deleted) throw AuthenticationFailed('User inactive or deleted.')
      request.caller = { id: row.id, isStaff: row.is_staff, tokenId: row.token_id }
      if (!row.last_used_at || Date.now() - new Date(row.last_used_at).getTime() > 60_000) {
        await credentials.markTokenUsed(row.token_id)
        row.last_used_at = new Date()
      }
    }
  })
}
