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
}
