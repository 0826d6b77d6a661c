import type { FastifyRequest } from 'fastify'

/** Absolute URLs for the request's host, or PUBLIC_URL when the service sits behind a proxy that rewrites it. */
export function baseUrl(request: FastifyRequest): string {
  const configured = request.server.config.publicUrl
  if (configured) return configured
  return `${request.protocol}://${request.host}`
}

export class UrlBuilder {
  constructor(readonly base: string) {}

  static for(request: FastifyRequest): UrlBuilder {
    return new UrlBuilder(baseUrl(request))
  }

  path(path: string): string {
    return this.base + path
  }

  detail(resource: string, id: number): string {
    return `${this.base}/api/${resource}/${id}/`
  }

  list(resource: string, query?: Record<string, string | number>): string {
    const url = `${this.base}/api/${resource}/`
    if (!query) return url
    return `${url}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString()}`
  }
}
