import diagnostics from 'node:diagnostics_channel'
import type { FastifyInstance, RouteOptions } from 'fastify'

/** JSON Schema as TypeBox emits it; only the keywords the generators read. */
export interface JsonSchema {
  type?: string | string[]
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  enum?: unknown[]
  const?: unknown
  minimum?: number
  maximum?: number
  minLength?: number
  maxLength?: number
  minItems?: number
  maxItems?: number
  format?: string
  pattern?: string
  additionalProperties?: boolean | JsonSchema
  [keyword: string]: unknown
}

/** One method of one URL as the app declared it. */
export interface RouteSpec {
  method: string
  url: string
  access: string
  params?: JsonSchema
  querystring?: JsonSchema
  body?: JsonSchema
  /** The shared layer's 405 and OPTIONS fallbacks, and Fastify's HEAD copies: fuzzed too, with fewer cases. */
  generated: boolean
  /** Its 200 is an event stream that stays open (live results): read briefly, then closed by the client. */
  stream: boolean
}

/** The header that names a case, so an error the app meets can be tied to the request that caused it. */
export const CASE_HEADER = 'x-fuzz-case'

/**
 * Watches the next Fastify instance created: collects every route, schemas included, and the error behind
 * each failed request. Fastify announces each new instance on the `fastify.initialization` channel before
 * any plugin or route is added, so hooks installed there see all of them (after `ready` the schemas are no
 * longer reachable from outside), and the service needs no hook of its own for the fuzz.
 */
export function instrumentNextApp(): { routes: RouteSpec[]; errors: Map<string, Error>; stop: () => void } {
  const routes: RouteSpec[] = []
  const errors = new Map<string, Error>()
  const channel = diagnostics.channel('fastify.initialization')
  const onInit = (message: unknown) => {
    const { fastify } = message as { fastify: FastifyInstance }
    channel.unsubscribe(onInit)
    fastify.addHook('onError', async (request, _reply, error) => {
      const id = request.headers[CASE_HEADER]
      if (typeof id === 'string') errors.set(id, error)
    })
    fastify.addHook('onRoute', (route: RouteOptions) => {
      const schema = (route.schema ?? {}) as Record<string, JsonSchema | undefined>
      const ok = (schema.response as Record<string, { content?: Record<string, unknown> }> | undefined)?.['200']
      const methods = [route.method].flat() as string[]
      for (const method of methods) {
        routes.push({
          method,
          url: route.url,
          access: String(route.config?.access ?? 'anyone'),
          params: schema.params,
          querystring: schema.querystring,
          body: schema.body,
          generated:
            (schema as { hide?: boolean }).hide === true || (method === 'HEAD' && (route as { isHead?: boolean }).isHead !== false),
          stream: ok?.content?.['text/event-stream'] !== undefined,
        })
      }
    })
  }
  channel.subscribe(onInit)
  return { routes, errors, stop: () => channel.unsubscribe(onInit) }
}
