import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { DOCS_PAGE_POLICY, docsAsset, docsPage } from './docs-page.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Values of `?format=` a route answers itself besides json and api (the schema's yaml). */
    formats?: string[]
  }
}

const SchemaQuery = Type.Object({
  format: Type.Optional(
    Type.Union([Type.Literal('json'), Type.Literal('yaml'), Type.Literal('api')], {
      description: '`yaml` for YAML; `api` for the browsable page; JSON by default',
    }),
  ),
})

const OpenApiDocument = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }),
    paths: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
)

/** Answers sent as they are (HTML, YAML, files) are described by media type; Fastify leaves strings and buffers alone. */
const text = (description: string, mediaTypes: Record<string, unknown>) => ({
  description,
  content: Object.fromEntries(Object.entries(mediaTypes).map(([type, schema]) => [type, { schema }])),
})

function appKeyInQuery(request: FastifyRequest): string | null {
  const key = (request.query as Record<string, unknown> | undefined)?.AppAuthorization
  return typeof key === 'string' && key ? key : null
}

/** The OpenAPI document of every route (/api/schema/) and an interactive reference built on it (/api/docs/). */
export function apiDocsRoutes(app: App): void {
  // Built from the routes once, on first request, then served as the same text.
  let json: string | undefined

  app.get('/api/schema/', {
    schema: {
      summary: 'The OpenAPI 3.1 document of this API',
      description: "Generated from the routes' own schemas: every operation, its parameters, body, answers and credentials.",
      querystring: SchemaQuery,
      response: {
        200: text('The document, in JSON or (with `?format=yaml`) YAML.', {
          'application/json': OpenApiDocument,
          'application/yaml': Type.String(),
        }),
      },
    },
    config: { access: 'anyone', formats: ['yaml'], resource: { name: 'API Schema', description: 'The OpenAPI 3.1 document of this API.' } },
    handler: async (request, reply) => {
      if (request.query.format === 'yaml') return reply.type('application/yaml; charset=utf-8').send(app.swagger({ yaml: true }))
      json ??= JSON.stringify(app.swagger())
      return reply.type('application/json').send(json)
    },
  })

  app.get('/api/docs/', {
    schema: {
      summary: 'Interactive reference of this API (Swagger UI)',
      description: 'An HTML page that reads `/api/schema/` and lets a person try each operation; it loads nothing from other hosts.',
      response: { 200: text('The page.', { 'text/html': Type.String() }) },
    },
    config: { access: 'anyone', resource: { name: 'API Reference', description: 'The interactive reference of this API.' } },
    handler: async (request, reply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', DOCS_PAGE_POLICY)
        .send(docsPage(appKeyInQuery(request))),
  })

  app.get('/api/docs/static/:file', {
    schema: { summary: 'A file of the reference page', hide: true, params: Type.Object({ file: Type.String({ maxLength: 100 }) }) },
    config: { access: 'anyone' },
    handler: async (request, reply) => {
      const asset = docsAsset(request.params.file)
      if (!asset) throw NotFound()
      return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(asset.content)
    },
  })
}
