import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { MethodNotAllowed, NotFound } from '../core/errors.ts'
import { describeFields } from './metadata.ts'
import type { Access } from './permissions.ts'
import { lightSendHook } from './hooks.ts'

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']
const WRITE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE']

/** What OPTIONS tells about a resource, declared once in the GET route's `config`. */
export interface ResourceInfo {
  name: string
  description: string
}

interface Entry {
  methods: Set<string>
  info?: ResourceInfo
  bodies: Map<string, unknown>
  access: Map<string, Access>
  /** The Allow header, worked out on first use (routes are all added by then). */
  allow?: string
}

/** Who may call each method of each URL, as the routes declare it (docs/permissions.md mirrors it). */
export type AccessTable = Map<string, Map<string, Access>>

declare module 'fastify' {
  interface FastifyInstance {
    accessTable: () => AccessTable
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    resource?: ResourceInfo
  }
}

/**
 * Every URL gets DRF's treatment in one place: an Allow header on every answer, OPTIONS metadata,
 * 405 for methods it lacks, HEAD wherever GET works (Fastify adds those routes) and a 301 to the
 * slashed path for a GET without its trailing slash.
 */
export class ResourceRegistry {
  private readonly entries = new Map<string, Entry>()

  /** Call before any route is added. */
  attach(app: FastifyInstance): void {
    app.decorate('accessTable', () => {
      const table: AccessTable = new Map()
      for (const [url, entry] of this.entries) {
        const methods = [...entry.methods].filter((method) => method !== 'HEAD' && method !== 'OPTIONS' && entry.access.has(method))
        if (methods.length) table.set(url, new Map(methods.map((method) => [method, entry.access.get(method)!])))
      }
      return table
    })
    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      const entry = this.entry(route.url)
      entry.allow = undefined
      for (const method of methods) {
        entry.methods.add(method)
        if (route.schema?.body) entry.bodies.set(method, route.schema.body)
        if (route.config?.access) entry.access.set(method, route.config.access)
      }
      if (route.config?.resource && !entry.info) entry.info = route.config.resource
    })
    app.addHook(
      'onSend',
      lightSendHook((request, reply) => {
        const url = request.routeOptions.url
        const entry = url ? this.entries.get(url) : undefined
        if (entry) reply.header('allow', (entry.allow ??= this.allow(entry)))
      }),
    )
  }

  /** Call after every module has added its routes. */
  complete(app: FastifyInstance): void {
    for (const [url, entry] of [...this.entries]) {
      if (url === '*' || url.includes('*')) continue
      if (!entry.methods.has('OPTIONS')) {
        app.route({
          method: 'OPTIONS',
          url,
          schema: { hide: true },
          config: { access: 'anyone' },
          handler: async (request) => this.metadata(request, entry),
        })
      }
      for (const method of ['GET', ...WRITE_METHODS]) {
        if (entry.methods.has(method)) continue
        app.route({
          method: method as 'GET',
          url,
          schema: { hide: true },
          config: { access: 'anyone' },
          exposeHeadRoute: false,
          handler: async (request) => {
            throw MethodNotAllowed(request.method)
          },
        })
        entry.methods.delete(method) // the fallback is not a real method of the resource
        entry.allow = undefined
      }
    }
    app.setNotFoundHandler(async (request, reply) => {
      const [path, query] = splitUrl(request.url)
      const slashed = `${path}/`
      if (['GET', 'HEAD'].includes(request.method) && !path.endsWith('/') && app.findRoute({ method: request.method, url: slashed })) {
        return reply
          .code(301)
          .header('location', slashed + (query ? `?${query}` : ''))
          .send('')
      }
      throw NotFound()
    })
  }

  private entry(url: string): Entry {
    let entry = this.entries.get(url)
    if (!entry) {
      entry = { methods: new Set(), bodies: new Map(), access: new Map() }
      this.entries.set(url, entry)
    }
    return entry
  }

  private allow(entry: Entry): string {
    const methods = new Set(entry.methods)
    methods.add('OPTIONS')
    if (methods.has('GET')) methods.add('HEAD')
    return METHOD_ORDER.filter((m) => methods.has(m)).join(', ')
  }

  private metadata(request: FastifyRequest, entry: Entry) {
    const info = entry.info ?? { name: nameFromUrl(request.routeOptions.url ?? ''), description: '' }
    const actions: Record<string, unknown> = {}
    for (const method of ['POST', 'PUT']) {
      const body = entry.bodies.get(method)
      if (body && request.caller) actions[method] = describeFields(body)
    }
    return {
      name: info.name,
      description: info.description,
      renders: ['application/json', 'text/html'],
      parses: ['application/json', 'application/x-www-form-urlencoded'],
      ...(Object.keys(actions).length ? { actions } : {}),
    }
  }
}

function splitUrl(url: string): [string, string] {
  const at = url.indexOf('?')
  return at === -1 ? [url, ''] : [url.slice(0, at), url.slice(at + 1)]
}

function nameFromUrl(url: string): string {
  const parts = url.split('/').filter((part) => part && !part.startsWith(':'))
  const last = parts.at(-1) ?? 'Api Root'
  const words = last.replace(/[-_]/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase())
  return url.includes('/:') ? `${words} Instance` : words
}
