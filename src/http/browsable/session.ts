import { randomBytes, timingSafeEqual } from 'node:crypto'
import type {} from '@fastify/cookie' // the request.cookies and reply.setCookie types
import type { FastifyReply, FastifyRequest } from 'fastify'

/** The sign-in token of the browsable pages; honoured only where `browsableCookieToken` says. */
export const TOKEN_COOKIE = 'browsable_token'
/** The double-submit value every browsable form carries back in CSRF_FIELD. */
export const CSRF_COOKIE = 'browsable_csrf'
export const CSRF_FIELD = 'csrfmiddlewaretoken'

const cookieOptions = (request: FastifyRequest) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'strict' as const,
  secure: request.protocol === 'https',
})

/**
 * The request's cookies, read when a page needs them: only the browsable pages do, so the API's requests skip the
 * cookie plugin's parsing (registered with `hook: false`).
 */
function cookiesOf(request: FastifyRequest): Record<string, string | undefined> {
  if (!request.cookies) {
    const header = request.headers.cookie
    request.cookies = header ? request.server.parseCookie(header) : {}
  }
  return request.cookies
}

/**
 * The cookie's token counts only on a GET or HEAD that renders a browsable page: a read the signed-in person
 * asked for in their browser. JSON API calls and writes never see it, so another site cannot use it; writes
 * from the pages go through the form endpoints, which check the CSRF value and send the token themselves.
 */
export function browsableCookieToken(request: FastifyRequest): string | null {
  if (!request.renderHtml || (request.method !== 'GET' && request.method !== 'HEAD')) return null
  const token = cookiesOf(request)[TOKEN_COOKIE]
  return typeof token === 'string' && /^[0-9a-f]{1,200}$/.test(token) ? token : null
}

export function signedInCookie(request: FastifyRequest): string | null {
  const token = cookiesOf(request)[TOKEN_COOKIE]
  return typeof token === 'string' && token ? token : null
}

/** This browser's CSRF value, made (and set as a cookie) on its first page. */
export function csrfValue(request: FastifyRequest, reply: FastifyReply): string {
  const existing = cookiesOf(request)[CSRF_COOKIE]
  if (typeof existing === 'string' && /^[0-9a-f]{64}$/.test(existing)) return existing
  const value = randomBytes(32).toString('hex')
  reply.setCookie(CSRF_COOKIE, value, cookieOptions(request))
  // The value is needed again if this request renders more than once (an inner page of a form post).
  request.cookies[CSRF_COOKIE] = value
  return value
}

/** A form post is from our page only if its hidden field matches the cookie that only our pages set. */
export function csrfValid(request: FastifyRequest, field: unknown): boolean {
  const cookie = cookiesOf(request)[CSRF_COOKIE]
  if (typeof cookie !== 'string' || typeof field !== 'string' || cookie.length !== field.length || !cookie) return false
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(field))
}

export function setTokenCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(TOKEN_COOKIE, token, cookieOptions(request))
}

export function clearTokenCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(TOKEN_COOKIE, cookieOptions(request))
}
