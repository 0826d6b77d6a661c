import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { readiness } from './readiness.ts'
import { readRouterOf } from '../../db/read-routing.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Set when the process was told to stop: /readyz fails at once while requests in flight finish. */
    draining: { since: number | null }
  }
  interface FastifyContextConfig {
    /** A health probe for load balancers and orchestrators: answered without credentials and never rate limited. */
    probe?: boolean
  }
}

const Status = Type.Object({ status: Type.String() })
/** With read replicas: each database's state (a replica's host and port, never its credentials). */
const Databases = Type.Object({
  primary: Type.String(),
  replicas: Type.Array(
    Type.Object({
      url: Type.String(),
      state: Type.Union([Type.Literal('ok'), Type.Literal('lagging'), Type.Literal('down')]),
      lag_ms: Type.Union([Type.Integer(), Type.Null()]),
    }),
  ),
})
const Ready = Type.Object({ status: Type.String(), migration: Type.String(), databases: Type.Optional(Databases) })
const Unready = Type.Object({ detail: Type.String(), databases: Type.Optional(Databases) })

/** Seconds a probe or a client waits before asking again while the database is away. */
const RETRY_AFTER_SECONDS = '5'

/** Outside the API tree and its root: /healthz says the process is up, /readyz that it can serve. */
export function healthRoutes(app: App): void {
  app.get('/healthz', {
    schema: { summary: 'The process is up', hide: true, response: { 200: Status } },
    config: { access: 'anyone', probe: true },
    handler: async (_request, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  })

  app.get('/readyz', {
    schema: { summary: 'The database answers and its migrations are current', hide: true, response: { 200: Ready, 503: Unready } },
    config: { access: 'anyone', probe: true },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store')
      // A stopping process leaves the balancer's rotation before it stops taking requests (docs/operations.md).
      if (app.draining.since !== null)
        return reply.code(503).header('retry-after', RETRY_AFTER_SECONDS).send({ detail: 'The server is shutting down.' })
      const state = await readiness(app.db)
      // Replicas only ever take reads the primary can take: ready as long as the primary is.
      const router = readRouterOf(app.db)
      const databases = (primary: string) => (router ? { databases: { primary, replicas: router.status() } } : {})
      if (state.ready) return reply.send({ status: 'ok', migration: state.migration, ...databases('ok') })
      request.log.warn({ err: state.error }, `not ready: ${state.detail}`)
      return reply
        .code(503)
        .header('retry-after', RETRY_AFTER_SECONDS)
        .send({ detail: state.detail, ...databases(state.detail.includes('not reachable') ? 'down' : 'error') })
    },
  })
}
