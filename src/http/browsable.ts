import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { NotFound } from './errors.ts'

const FORMATS = new Set(['json', 'api'])

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

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string)

/** JSON indented by 4 with every URL a link, as DRF's browsable API shows it. */
function linkify(json: string): string {
  return escapeHtml(json).replace(/&quot;(https?:\/\/[^&\s]+?)&quot;/g, (_m, url: string) => `&quot;<a href="${url}">${url}</a>&quot;`)
}

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 301: 'Moved Permanently', 400: 'Bad Request', 401: 'Unauthorized',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  429: 'Too Many Requests', 500: 'Internal Server Error',
}

function page(request: FastifyRequest, reply: FastifyReply, json: string): string {
  const name = request.routeOptions.config?.resource?.name ?? 'Civic Survey API'
  const description = request.routeOptions.config?.resource?.description ?? ''
  let pretty = json
  try {
    pretty = JSON.stringify(JSON.parse(json), null, 4)
  } catch {
    // not JSON: shown as it is
  }
  const headers = ['allow', 'content-type', 'vary']
    .map((h) => [h, reply.getHeader(h)] as const)
    .filter(([, v]) => v !== undefined)
    .map(([h, v]) => `<b>${h.replace(/\b\w/g, (c) => c.toUpperCase())}:</b> ${escapeHtml(String(v).replace('text/html; charset=utf-8', 'application/json'))}`)
  const crumbs = request.url.split('?')[0].split('/').filter(Boolean)
  const breadcrumbs = crumbs.map((part, i) => `<a href="/${crumbs.slice(0, i + 1).join('/')}/">${escapeHtml(part)}</a>`).join(' / ')
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(name)} – Civic Survey API</title>
<style>body{font-family:system-ui,sans-serif;margin:0;color:#222}header{background:#1d3b5c;color:#fff;padding:.8rem 1.5rem}
main{padding:1rem 1.5rem}pre{background:#f6f8fa;border:1px solid #ddd;padding:1rem;overflow:auto;white-space:pre-wrap}
a{color:#0b5cad}.request{font-family:monospace;margin:.5rem 0}</style></head>
<body><header><strong>Civic Survey API</strong></header><main>
<nav>${breadcrumbs}</nav>
<h1>${escapeHtml(name)}</h1>
${description ? `<p>${escapeHtml(description)}</p>` : ''}
<div class="request"><b>${escapeHtml(request.method)}</b> ${escapeHtml(request.url)}</div>
<pre><b>HTTP ${reply.statusCode} ${STATUS_TEXT[reply.statusCode] ?? ''}</b>
${headers.join('\n')}

${linkify(pretty)}</pre>
</main></body></html>`
}

export function registerBrowsableRendering(app: FastifyInstance): void {
  app.decorateRequest('renderHtml', false)
  app.addHook('onRequest', async (request) => {
    const format = (request.query as Record<string, unknown> | undefined)?.format
    if (typeof format === 'string' && !FORMATS.has(format)) throw NotFound()
    request.renderHtml = wantsHtml(request)
  })
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.renderHtml) return payload
    const type = String(reply.getHeader('content-type') ?? '')
    if (!type.startsWith('application/json') || typeof payload !== 'string') return payload
    reply.header('content-type', 'text/html; charset=utf-8')
    reply.header('vary', 'Accept')
    return page(request, reply, payload)
  })
}
