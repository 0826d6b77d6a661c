import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { ApiError, NotFound } from '../../core/errors.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { ErrorBody, readErrors } from '../../http/schemas.ts'
import type { LiveHub } from './live-hub.ts'
import { liveFiguresRepository } from './live-figures.repository.ts'
import { eventStream } from './live.schemas.ts'

declare module 'fastify' {
  interface FastifyInstance {
    live: LiveHub
  }
}

const RECONNECT_MS = 2_000
const liveErrors = { ...readErrors, 503: ErrorBody }

/** Opens the event stream and hands it to the hub; HEAD only says what GET would. */
function openStream(app: App, request: FastifyRequest, reply: FastifyReply, kind: 'question' | 'collection', id: number) {
  const headers = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  }
  if (request.method === 'HEAD') return reply.headers(headers).send()
  if (!app.live.admits())
    throw new ApiError(503, { detail: 'Too many live subscribers on this server; try again shortly.' }, { 'retry-after': '5' })
  const lastId = request.headers['last-event-id']
  reply.hijack()
  reply.raw.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), ...headers })
  reply.raw.write(`retry: ${RECONNECT_MS}\n\n`)
  app.live.subscribe(kind, id, reply.raw, typeof lastId === 'string' && lastId ? lastId : null, {
    id: request.caller?.id ?? null,
    isStaff: request.caller?.isStaff ?? false,
  })
}

export function liveRoutes(app: App): void {
  app.get('/api/questions/:id/live/', {
    schema: {
      summary: "A question's figures, live",
      description:
        'Server-Sent Events: `figures` with the direct and liquid figures of the question and its choices, at once and after ' +
        'each change (a few a second at most); `gone` when the question is deleted or hidden. Send `Last-Event-ID` on ' +
        'reconnecting to be sent figures only if they changed meanwhile.',
      params: IdParams,
      response: { 200: eventStream('The event stream.'), ...liveErrors },
    },
    config: { access: 'anyone', resource: { name: 'Question Live', description: "A question's figures as they change." } },
    handler: async (request, reply) => {
      const live = liveFiguresRepository(app.db, app.config.minCellSize)
      if (!(await live.questionVisible(request.params.id, request.caller))) throw NotFound()
      return openStream(app, request, reply, 'question', request.params.id)
    },
  })

  app.get('/api/question_collections/:id/live/', {
    schema: {
      summary: "A collection's figures, live",
      description:
        'Server-Sent Events: `snapshot` with the figures of every published question of the collection, in its order, then ' +
        '`figures` with those of the questions that changed (a new `snapshot` when its questions change); `gone` when the ' +
        'collection is deleted. `Last-Event-ID` resumes as for a question.',
      params: IdParams,
      response: { 200: eventStream('The event stream.'), ...liveErrors },
    },
    config: { access: 'anyone', resource: { name: 'Collection Live', description: "A collection's figures as they change." } },
    handler: async (request, reply) => {
      if (!(await liveFiguresRepository(app.db, app.config.minCellSize).collectionExists(request.params.id))) throw NotFound()
      return openStream(app, request, reply, 'collection', request.params.id)
    },
  })
}
