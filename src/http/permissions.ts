import type { FastifyInstance, FastifyRequest } from 'fastify'
import { NotAuthenticated, NotFound, PermissionDenied } from '../core/errors.ts'
import { readInteger } from '../core/integers.ts'
import { lightHook } from './hooks.ts'

/**
 * Who may call a route, the single rule every route declares (docs/permissions.md is the table):
 * - anyone: any caller, with or without a token (and with a key when keys are required);
 * - signed-in: a user with a token; the route acts on that user's own things;
 * - owner: the signed-in owner of the object the URL names, or staff;
 * - staff: staff only.
 */
export type Access = 'anyone' | 'signed-in' | 'owner' | 'staff'

/** The owner's user id of the object a request names, or undefined when there is no such object (404). */
export type OwnerLookup = (request: FastifyRequest) => Promise<number | null | undefined>

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access
    owner?: OwnerLookup
  }
}

/** The signed-in caller of a route whose access rule requires one (refused before the handler runs otherwise). */
export function signedIn(request: FastifyRequest): NonNullable<FastifyRequest['caller']> {
  if (!request.caller) throw NotAuthenticated()
  return request.caller
}

/** A path parameter as a database id (read as every path id is), or null when it cannot be one (the route then answers 404). */
export function idParam(request: FastifyRequest, name = 'id'): number | null {
  const reading = readInteger((request.params as Record<string, string | undefined>)[name], 'query', { minimum: 1 })
  return reading.ok ? reading.value : null
}

/** Checks the route's access before its body is validated, as DRF checks permissions before parsing. */
export function registerPermissions(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.config?.access) throw new Error(`route ${String(route.method)} ${route.url} declares no access`)
    if (route.config.access === 'owner' && !route.config.owner) throw new Error(`route ${route.url} needs an owner lookup`)
  })
  app.addHook(
    'preValidation',
    lightHook((request) => {
      const { access, owner } = request.routeOptions.config
      if (access === 'anyone' || access === undefined) return
      const caller = request.caller
      if (!caller) throw NotAuthenticated()
      if (access === 'signed-in') return
      if (access === 'staff') {
        if (!caller.isStaff) throw PermissionDenied()
        return
      }
      return Promise.resolve(owner!(request)).then((ownerId) => {
        if (ownerId === undefined) throw NotFound()
        if (ownerId !== caller.id && !caller.isStaff) throw PermissionDenied()
      })
    }),
  )
}
