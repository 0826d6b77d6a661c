import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Access, OwnerLookup } from '../permissions.ts'
import { filtersForm, methodButton, methodForm, userArea, type FormContext } from './forms.ts'
import { escapeHtml, keptParameters, linkifyJson, withKept } from './html.ts'
import { STYLE } from './style.ts'

/** What a URL's routes accept, recorded as they are added: methods with their body schema and access rule. */
export interface RouteForms {
  methods: Map<string, { body?: unknown; query?: unknown; access?: Access; owner?: OwnerLookup }>
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  301: 'Moved Permanently',
  303: 'See Other',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
}
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']

export interface PageInput {
  request: FastifyRequest
  reply: FastifyReply
  json: string
  forms: RouteForms | undefined
  user: string | null
  signedInHere: boolean
  csrf: string
}

/** Whether the caller passes the method's access rule, so the page offers only the forms that can succeed. */
async function mayCall(route: { access?: Access; owner?: OwnerLookup }, request: FastifyRequest): Promise<boolean> {
  const { access, owner } = route
  if (access === 'anyone' || access === undefined) return true
  const caller = request.caller
  if (!caller) return false
  if (caller.isStaff || access === 'signed-in') return true
  if (access === 'staff' || !owner) return false
  // The same URL, so the same path parameters: the owner lookup of the write route answers for this page.
  return (await owner(request).catch(() => undefined)) === caller.id
}

export async function renderPage({ request, reply, json, forms, user, signedInHere, csrf }: PageInput): Promise<string> {
  const name = request.routeOptions.config?.resource?.name ?? 'Civic Survey API'
  const description = request.routeOptions.config?.resource?.description ?? ''
  const query = (request.query ?? {}) as Record<string, unknown>
  const kept = keptParameters(query)
  const own = new Set<string>([originOf(`${request.protocol}://${request.host}`)])
  if (request.server.config.publicUrl) own.add(originOf(request.server.config.publicUrl))
  const link = (url: string) => withKept(url, kept, own)

  let pretty = json
  let data: unknown
  try {
    data = JSON.parse(json)
    pretty = JSON.stringify(data, null, 4)
  } catch {
    // not JSON: shown as it is
  }
  const [path, search = ''] = request.url.split('?')
  const params = new URLSearchParams(search)
  params.delete('format')
  const target = path + (params.size ? `?${params}` : '')
  const context: FormContext = { target, csrf, action: (p) => withKept(p, kept, own) }

  const methods = forms
    ? METHOD_ORDER.filter((m) => forms.methods.has(m) || m === 'OPTIONS' || (m === 'HEAD' && forms.methods.has('GET')))
    : []
  const headers: [string, string][] = []
  if (methods.length) headers.push(['Allow', methods.join(', ')])
  if (json) headers.push(['Content-Type', 'application/json'])
  headers.push(['Vary', 'Accept'])

  const crumbs = path.split('/').filter(Boolean)
  const breadcrumbs = crumbs
    .map(
      (part, i) => `<a href="${escapeHtml(link(`/${crumbs.slice(0, i + 1).join('/')}/`))}">${escapeHtml(decodeURIComponentSafe(part))}</a>`,
    )
    .join(' / ')

  const allowed = new Set<string>()
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
    const route = forms?.methods.get(method)
    if (route && (await mayCall(route, request))) allowed.add(method)
  }
  const writable = (method: string) => allowed.has(method)
  const buttons = [writable('DELETE') ? methodButton('DELETE', context) : '', forms ? methodButton('OPTIONS', context) : ''].join('')
  const current =
    data && typeof data === 'object' && !Array.isArray(data) && request.method === 'GET'
      ? Object.fromEntries(
          Object.entries(data)
            .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
            .map(([k, v]) => [k, String(v)]),
        )
      : {}
  const writeForms = ['POST', 'PUT', 'PATCH']
    .filter(writable)
    .map((method) => methodForm(method, forms!.methods.get(method)!.body as never, context, method === 'POST' ? {} : current))
    .join('\n')
  const filters = forms?.methods.has('GET') ? filtersForm(forms.methods.get('GET')!.query as never, query, path, kept) : ''
  const next = withKept(request.method === 'GET' ? request.url : target, kept, own)
  // What a route also draws (`?format=svg`) is shown above its JSON: the same answer, as a picture.
  const drawn = request.method === 'GET' && reply.statusCode === 200 && request.routeOptions.config?.formats?.includes('svg')
  const picture = drawn
    ? `<figure class="picture"><img src="${escapeHtml(link(`${path}?${withParam(params, 'format', 'svg')}`))}" alt="${escapeHtml(`${name}, drawn`)}"></figure>`
    : ''

  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>${escapeHtml(name)} – Civic Survey API</title>
<style>${STYLE}</style></head>
<body><header><a href="${escapeHtml(link('/api/'))}">Civic Survey API</a>${userArea(user, signedInHere, context, next)}</header><main>
<nav class="crumbs">${breadcrumbs}</nav>
<div class="buttons">${buttons}</div>
<h1>${escapeHtml(name)}</h1>
${description ? `<p>${escapeHtml(description)}</p>` : ''}
${filters}
<div class="request"><b>${escapeHtml(request.method)}</b> ${escapeHtml(target)}</div>
${picture}
<pre class="response"><b>HTTP ${reply.statusCode} ${STATUS_TEXT[reply.statusCode] ?? ''}</b>
${headers.map(([h, v]) => `<b>${h}:</b> ${escapeHtml(v)}`).join('\n')}

${linkifyJson(pretty, link)}</pre>
${writeForms}
</main></body></html>`
}

/** The query with one parameter set, the others as they were. */
function withParam(params: URLSearchParams, name: string, value: string): string {
  const copy = new URLSearchParams(params)
  copy.set(name, value)
  return copy.toString()
}

function decodeURIComponentSafe(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    return part
  }
}

/** `http://localhost:80` and `http://localhost` are one origin. */
function originOf(url: string): string {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}
