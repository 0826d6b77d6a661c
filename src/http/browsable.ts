import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { ApiError, NotFound, ValidationFailed } from '../core/errors.ts'
import type { RouteForms } from './browsable/page.ts'
import { renderPage } from './browsable/page.ts'
import { CONTENT_SECURITY_POLICY } from './browsable/style.ts'
import { CSRF_FIELD, clearTokenCookie, csrfValid, csrfValue, setTokenCookie, signedInCookie } from './browsable/session.ts'
import { lightHook, lightSendHook } from './hooks.ts'

const FORMATS = new Set(['json', 'api'])
const FORM_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
/** Marks the request a form post stands for, made inside the service. */
const FORM_HEADER = 'x-browsable-form'

declare module 'fastify' {
  interface FastifyRequest {
    renderHtml: boolean
  }
}

/** `?format=api` (or a browser's Accept: text/html) asks for the browsable page; `?format=json` for JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  const format = (request.query as Record<string, unknown> | undefined)?.format
  if (format === 'api') return true
  if (format === 'json') return false
  const accept = request.headers.accept ?? ''
  return /\btext\/html\b/.test(accept) && !/\bapplication\/json\b/.test(accept.split(',')[0] ?? '')
}

export function registerBrowsableRendering(app: FastifyInstance): void {
  const routes = new Map<string, RouteForms>()
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.hide) return // 405 fallbacks, probes, the form endpoints
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    const forms = routes.get(route.url) ?? { methods: new Map() }
    for (const method of methods)
      forms.methods.set(method, {
        body: route.schema?.body,
        query: route.schema?.querystring,
        access: route.config?.access,
        owner: route.config?.owner,
      })
    routes.set(route.url, forms)
  })

  app.decorateRequest('renderHtml', false)
  app.addHook(
    'onRequest',
    lightHook((request) => {
      const format = (request.query as Record<string, unknown> | undefined)?.format
      if (typeof format === 'string' && !FORMATS.has(format) && !request.routeOptions.config.formats?.includes(format)) throw NotFound()
      request.renderHtml = wantsHtml(request)
    }),
  )
  const render = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const type = String(reply.getHeader('content-type') ?? '')
    const empty = reply.statusCode === 204 // its body, if any, is never sent
    if (!empty && (!type.startsWith('application/json') || typeof payload !== 'string')) return payload
    const user = request.caller
      ? ((await app.db.selectFrom('users').select('username').where('id', '=', request.caller.id).executeTakeFirst())?.username ?? null)
      : null
    const html = await renderPage({
      request,
      reply,
      json: empty ? '' : (payload as string),
      forms: request.routeOptions.url ? routes.get(request.routeOptions.url) : undefined,
      user,
      signedInHere: user !== null && signedInCookie(request) !== null,
      csrf: csrfValue(request, reply),
    })
    reply.header('content-type', 'text/html; charset=utf-8')
    reply.header('vary', 'Accept')
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY)
    reply.header('x-content-type-options', 'nosniff')
    // A browser shows nothing for a 204, so a form's DELETE answers its page (which says 204) as 200.
    if (empty && request.headers[FORM_HEADER] === '1') reply.code(200)
    return html
  }
  app.addHook(
    'onSend',
    lightSendHook((request, reply, payload) => (request.renderHtml ? render(request, reply, payload) : undefined)),
  )
  registerFormEndpoints(app)
}

type FormBody = Record<string, unknown>
const field = (body: FormBody, name: string): string | undefined => {
  const value = body[name]
  return typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined
}

/** A path of this service (never another site, never the form endpoints themselves). */
function localPath(value: string | undefined, name: string): string {
  // Browsers drop tabs and newlines from URLs and read `\` as `/`, so `/\t/evil.example` would leave the site.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  if (!value || !/^\/(?![/\\])[^\s\\\x00-\x1f\x7f]*$/.test(value) || value.startsWith('/api/_browse/')) {
    throw ValidationFailed({ [name]: ['Enter a path of this service.'] })
  }
  return value
}

/** The target with `format=api`, so the inner answer is rendered as its own page; the key stays as given. */
function asPage(path: string): string {
  const url = new URL(path, 'http://local.invalid')
  url.searchParams.set('format', 'api')
  return url.pathname + url.search
}

function checkCsrf(request: FastifyRequest): FormBody {
  const body = (request.body ?? {}) as FormBody
  if (!csrfValid(request, field(body, CSRF_FIELD))) throw new ApiError(403, { detail: 'CSRF Failed: CSRF token missing or incorrect.' })
  return body
}

/** What the inner request carries from the form post: the person's address and host, and the page's cookies. */
function passedHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const name of ['host', 'cookie', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'user-agent']) {
    const value = request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  headers[FORM_HEADER] = '1'
  const token = signedInCookie(request)
  if (token) headers.authorization = `Token ${token}`
  return headers
}

/**
 * HTML forms can only GET and POST, so the pages' forms post here (with the CSRF value) and the request they
 * stand for is made inside the service with the signed-in token, as DRF's `_method`/`_content` overrides do.
 */
function registerFormEndpoints(app: FastifyInstance): void {
  const hide = { hide: true }
  app.post('/api/_browse/submit/', {
    schema: hide,
    config: { access: 'anyone', resource: { name: 'Submit', description: "The browsable pages' forms post here." } },
    handler: async (request, reply) => {
      const body = checkCsrf(request)
      const method = (field(body, '_method') ?? 'POST').toUpperCase()
      if (!FORM_METHODS.has(method)) throw ValidationFailed({ _method: [`"${method}" is not a method these forms send.`] })
      const url = asPage(localPath(field(body, '_url'), '_url'))
      const headers = passedHeaders(request)
      let payload: string | undefined
      const raw = field(body, '_content')
      if (raw !== undefined) {
        headers['content-type'] = field(body, '_content_type') || 'application/json'
        payload = raw
      } else if (method !== 'DELETE' && method !== 'OPTIONS') {
        const form = new URLSearchParams()
        for (const name of Object.keys(body)) {
          if (name.startsWith('_') || name === CSRF_FIELD) continue
          const value = field(body, name)
          if (value !== undefined && value !== '') form.append(name, value)
        }
        headers['content-type'] = 'application/x-www-form-urlencoded'
        payload = form.toString()
      }
      const inner = await app.inject({ method: method as 'POST', url, headers, payload, remoteAddress: request.ip })
      return relay(reply, inner)
    },
  })

  app.post('/api/_browse/login/', {
    schema: hide,
    config: { access: 'anyone', resource: { name: 'Sign in', description: 'Sign in to the browsable pages.' } },
    handler: async (request, reply) => {
      const body = checkCsrf(request)
      const next = localPath(field(body, 'next') || '/api/?format=api', 'next')
      const key = new URL(next, 'http://local.invalid').searchParams.get('AppAuthorization')
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      for (const name of ['host', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'user-agent']) {
        const value = request.headers[name]
        if (typeof value === 'string') headers[name] = value
      }
      if (key) headers.appauthorization = key
      const inner = await app.inject({
        method: 'POST',
        url: '/auth/login/',
        headers,
        remoteAddress: request.ip,
        payload: JSON.stringify({ username: field(body, 'username') ?? '', password: field(body, 'password') ?? '' }),
      })
      if (inner.statusCode !== 200) return reply.code(inner.statusCode).type('application/json').send(inner.body)
      setTokenCookie(request, reply, inner.json().auth_token)
      return reply.code(303).header('location', next).send('')
    },
  })

  app.post('/api/_browse/logout/', {
    schema: hide,
    config: { access: 'anyone', resource: { name: 'Sign out', description: 'Sign out of the browsable pages.' } },
    handler: async (request, reply) => {
      const body = checkCsrf(request)
      const next = localPath(field(body, 'next') || '/api/?format=api', 'next')
      const headers = passedHeaders(request)
      if (headers.authorization) {
        const key = new URL(next, 'http://local.invalid').searchParams.get('AppAuthorization')
        if (key) headers.appauthorization = key
        await app.inject({ method: 'POST', url: '/auth/logout/', headers, remoteAddress: request.ip })
      }
      clearTokenCookie(request, reply)
      return reply.code(303).header('location', next).send('')
    },
  })
}

/** The inner request's page, answered as this request's own: its status, its page, its headers. */
function relay(reply: FastifyReply, inner: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  for (const name of ['content-type', 'content-security-policy', 'x-content-type-options', 'allow', 'vary', 'retry-after']) {
    const value = inner.headers[name]
    if (typeof value === 'string') reply.header(name, value)
  }
  return reply.code(inner.statusCode).send(inner.body)
}
