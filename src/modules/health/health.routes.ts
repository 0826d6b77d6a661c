import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { readiness } from './readiness.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A health probe for load balancers and orchestrators: answered without credentials and never rate limited. */
    probe?: boolean
  }
}

const Status = Type.Object({ status: Type.String() })
const Ready = Type.Object({ status: Type.String(), migration: Type.String() })
const Unready = Type.Object({ detail: Type.String() })

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
      const state = await readiness(app.db)
      if (state.ready) return reply.send({ status: 'ok', migration: state.migration })
      request.log.warn({ err: state.error }, `not ready: ${state.detail}`)
      return reply.code(503).header('retry-after', RETRY_AFTER_SECONDS).send({ detail: state.detail })
    },
  })
}
