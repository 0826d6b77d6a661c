import type { FastifyRequest } from 'fastify'
import { UrlBuilder } from '../core/urls.ts'

/** Absolute URLs for the request's host, or PUBLIC_URL when the service sits behind a proxy that rewrites it. */
export function baseUrl(request: FastifyRequest): string {
  const configured = request.server.config.publicUrl
  if (configured) return configured
  return `${request.protocol}://${request.host}`
}

/** The URL builder for the host this request was made on. */
export const urlsFor = (request: FastifyRequest) => new UrlBuilder(baseUrl(request))
