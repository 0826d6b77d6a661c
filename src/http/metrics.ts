import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { httpSeries, renderMetrics, requestRanStatements, UNMATCHED_ROUTE, type HttpSeries } from '../core/metrics.ts'
import type { QueryCounter } from '../db/query-counter.ts'
import { lightHook } from './hooks.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's statement count (src/db/query-counter.ts), while metrics or X-Query-Count read it. */
    statementCount: QueryCounter | null
  }
}

/** Series by route (its context's config object, one per route and method), then method, then status code. */
const seriesByRoute = new WeakMap<object, Map<string, Map<number, HttpSeries>>>()
/** The key of requests whose route has no config object. */
const NO_CONFIG = {}

function seriesOf(request: FastifyRequest, statusCode: number): HttpSeries {
  const { config, url } = request.routeOptions
  const key = config ?? NO_CONFIG
  let byMethod = seriesByRoute.get(key)
  if (!byMethod) seriesByRoute.set(key, (byMethod = new Map()))
  const method = request.method
  let byStatus = byMethod.get(method)
  if (!byStatus) byMethod.set(method, (byStatus = new Map()))
  let series = byStatus.get(statusCode)
  if (!series) byStatus.set(statusCode, (series = httpSeries(method, url ?? UNMATCHED_ROUTE, statusCode)))
  return series
}

/**
 * Every answer of the public port counted by method, route pattern (never the URL: its cardinality is the route
 * table's) and status code, with its latency; and the statements each request ran, when counted. The series of a
 * route, method and status code are looked up in a few maps, so a request allocates nothing for its metrics.
 */
export function registerHttpMetrics(app: FastifyInstance): void {
  app.addHook(
    'onResponse',
    lightHook((request, reply) => {
      seriesOf(request, reply.statusCode).observe(reply.elapsedTime / 1000)
      if (request.statementCount) requestRanStatements(request.statementCount.queries)
    }),
  )
}

export interface MetricsServer {
  /** host:port it listens on */
  address: string
  close(): Promise<void>
}

/**
 * The metrics' own HTTP server, apart from the public port: `GET /metrics` (or HEAD) answers the process's registry
 * in Prometheus's text format; any other path 404, any other method 405. `exclusive`: a worker of `serve --workers`
 * listens on its own port rather than sharing one through the cluster's primary.
 */
export async function startMetricsServer(host: string, port: number, options: { exclusive?: boolean } = {}): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?', 1)[0]
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at /metrics\n')
      return
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed\n')
      return
    }
    renderMetrics().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' })
        response.end(request.method === 'HEAD' ? undefined : body)
      },
      (error: Error) => {
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics could not be collected: ${error.message}\n`)
      },
    )
  })
  // A scrape that stalls must not hold a socket for ever.
  server.requestTimeout = 10_000
  server.headersTimeout = 10_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port, exclusive: options.exclusive ?? false }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const bound = server.address() as AddressInfo
  return {
    address: `${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Prometheus keeps its connection open between scrapes.
        server.closeAllConnections()
      }),
  }
}
