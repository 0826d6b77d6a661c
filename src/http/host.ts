import type { FastifyInstance } from 'fastify'
import { ApiError } from '../core/errors.ts'
import { lightHook } from './hooks.ts'

/** Django's host check (underscores allowed too, for container names): a name of letters, digits, dots and hyphens, or a bracketed IPv6 address; a port. */
const VALID_HOST = /^([a-z0-9._-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(:\d+)?$/i

/**
 * Without PUBLIC_URL every absolute URL in an answer is built from the request's host, so a host no URL can
 * carry (`exa mple.org`, `[::1`) is refused up front with a 400, as Django refuses it, rather than failing
 * the answer's serialization.
 */
export function registerHostCheck(app: FastifyInstance): void {
  if (app.config.publicUrl) return
  app.addHook(
    'onRequest',
    lightHook((request) => {
      const host = request.host
      if (!host || !VALID_HOST.test(host)) throw new ApiError(400, { detail: `Invalid Host header "${host ?? ''}".` })
    }),
  )
}
