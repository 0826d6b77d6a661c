import type { FastifySchema, RouteOptions } from 'fastify'
import { ErrorBody, FieldErrorsBody } from '../../http/schemas.ts'
import type { Access } from '../../http/permissions.ts'

/** Names of the credentials in `components.securitySchemes`. */
export const APP_KEY_QUERY = 'AppKeyQuery'
export const APP_KEY_HEADER = 'AppKeyHeader'
export const TOKEN = 'Token'

export const securitySchemes = {
  [APP_KEY_QUERY]: {
    type: 'apiKey',
    in: 'query',
    name: 'AppAuthorization',
    description: 'The application key as a query parameter (`?AppAuthorization=<key>`).',
  },
  [APP_KEY_HEADER]: {
    type: 'apiKey',
    in: 'header',
    name: 'AppAuthorization',
    description: 'The application key as a header (`AppAuthorization: <key>`).',
  },
  [TOKEN]: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'A sign-in token, sent as `Authorization: Token <token>` (the answer of `POST /auth/login/`).',
  },
} as const

const ACCESS_TEXT: Record<Access, string> = {
  anyone: 'Access: anyone; a sign-in token, when sent, shows what its user may see.',
  'signed-in': 'Access: a signed-in user, acting on their own things.',
  owner: 'Access: the signed-in owner of the object, or staff.',
  staff: 'Access: staff only.',
}

type Requirement = Record<string, string[]>

/**
 * The alternatives of credentials a route accepts, from its access rule: a token where one is needed, a key
 * (query or header) where the service requires keys, each optional otherwise.
 */
export function securityFor(access: Access, requireAppKey: boolean): Requirement[] {
  const keys: Requirement[] = [{ [APP_KEY_QUERY]: [] }, { [APP_KEY_HEADER]: [] }]
  const keyChoices: Requirement[] = requireAppKey ? keys : [{}, ...keys]
  const tokenChoices: Requirement[] = access === 'anyone' ? [{}, { [TOKEN]: [] }] : [{ [TOKEN]: [] }]
  return keyChoices.flatMap((key) => tokenChoices.map((token) => ({ ...key, ...token })))
}

const error = (description: string, body: object = ErrorBody) => ({ ...body, 'x-response-description': description })

/**
 * What the shared layer may answer on any route besides its own statuses: bad input or a Host no URL can carry
 * (400), bad credentials (401), refused access (403), an unknown `format` or object (404), throttling (429) and
 * an unreachable database (503); bodies besides 413 and 415.
 */
function sharedErrors(access: Access, hasBody: boolean): Record<string, unknown> {
  return {
    400: error('Invalid input: field name to messages (or `detail` for a body that could not be read).', FieldErrorsBody),
    401: error('Invalid or revoked application key or token, or a key missing where keys are required.'),
    403: error(access === 'anyone' ? 'Not allowed to act on this object.' : 'No sign-in token, or not allowed to act on this object.'),
    404: error('No such object, page or `format`.'),
    ...(hasBody
      ? { 413: error('Body larger than the service accepts.'), 415: error('Body in a media type the service does not read.') }
      : {}),
    429: error('Throttled: the `Retry-After` header says when to try again.'),
    503: error('The database is unreachable for now: the `Retry-After` header says when to try again.'),
  }
}

/** `/api/questions/:id/` -> `questions`, the first path segment under the prefix, as DRF's schema generators tag. */
export function tagOf(url: string): string {
  const [prefix, first] = url.split('/').filter(Boolean)
  if (prefix === 'api' && first && !first.startsWith(':')) return first
  if (prefix === 'auth-yeti') return 'auth'
  if (prefix === 'api-push') return 'push devices'
  return prefix ?? 'root'
}

/** A plain copy of a route schema with the `format` choice every GET has (json or the browsable page). */
function withFormat(querystring: unknown): Record<string, unknown> {
  const schema = (querystring ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> }
  if (schema.properties?.format) return schema as Record<string, unknown>
  const format = { type: 'string', enum: ['json', 'api'], description: '`api`: the browsable HTML page; `json` (default): JSON' }
  return { ...schema, type: 'object', properties: { ...schema.properties, format } }
}

/**
 * The route's operation as documented: its own schema, plus what every route shares and the routes do not
 * repeat (credentials, the shared errors, the media types bodies are read in, the `format` choice, a tag).
 */
export function describeRoute(route: RouteOptions, schema: FastifySchema, requireAppKey: boolean): FastifySchema {
  const access = route.config?.access ?? 'anyone'
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  const own = schema as FastifySchema & { response?: Record<string, unknown>; consumes?: string[]; security?: unknown }
  const described: Record<string, unknown> = {
    ...own,
    summary: own.summary ?? fallbackSummary(route),
    description: [own.description, ACCESS_TEXT[access]].filter(Boolean).join('\n\n'),
    tags: own.tags ?? [tagOf(route.url)],
    security: own.security ?? securityFor(access, requireAppKey),
    response: byStatus(responses(sharedErrors(access, own.body !== undefined), own.response ?? {}, successText(route, own.summary))),
  }
  if (own.body !== undefined && !own.consumes) described.consumes = ['application/json', 'application/x-www-form-urlencoded']
  if (methods.includes('GET')) described.querystring = withFormat(own.querystring)
  return described as FastifySchema
}

const STATUS_TEXT: Record<string, string> = {
  302: 'A redirect to the address in `Location`',
  502: 'The provider could not be reached',
}

const isPage = (schema: unknown) => {
  const properties = (schema as { properties?: Record<string, unknown> }).properties
  return Boolean(properties?.results && properties.count && properties.next)
}

/** A success answer's description, where the route gives none: what the method returns, from the resource. */
function successText(route: RouteOptions, summary: string | undefined): (status: string, schema: unknown) => string | undefined {
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  const about = route.config?.resource?.description ?? summary ?? ''
  const lower = about.charAt(0).toLowerCase() + about.slice(1)
  return (status, schema) => {
    if (status === '204') return 'Done; no body.'
    if (status === '201') return 'Created: the new object, as a read of it shows it.'
    if (status !== '200') return undefined
    if (methods.includes('GET')) return isPage(schema) ? `A page (\`count\`, \`next\`, \`previous\`, \`results\`) of ${lower}` : about
    if (methods.includes('PATCH') || methods.includes('PUT')) return 'The object after the change.'
    return about || undefined
  }
}

/**
 * The route's own answers over the shared ones; where a route names a shared body (ErrorBody, FieldErrorsBody)
 * the shared, status-specific description is kept, and an answer without a description gets one from its method
 * and resource.
 */
function responses(
  shared: Record<string, unknown>,
  own: Record<string, unknown>,
  success: (status: string, schema: unknown) => string | undefined,
): Record<string, unknown> {
  const sharedBodies = new Set<unknown>([ErrorBody, FieldErrorsBody])
  const sharedTexts = new Set([
    (ErrorBody as { description?: string }).description,
    (FieldErrorsBody as { description?: string }).description,
  ])
  const merged = { ...shared }
  for (const [status, schema] of Object.entries(own)) {
    const body = schema as { description?: string }
    if (status in shared && (sharedBodies.has(schema) || sharedTexts.has(body.description))) continue
    const text =
      (shared[status] as Record<string, unknown> | undefined)?.['x-response-description'] ?? success(status, schema) ?? STATUS_TEXT[status]
    merged[status] = body.description || !text ? schema : { ...body, 'x-response-description': text }
  }
  return merged
}

function byStatus(responses: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)))
}

/** For a route that declares no summary: its method and resource. */
function fallbackSummary(route: RouteOptions): string {
  const methods = Array.isArray(route.method) ? route.method : [route.method]
  return `${methods.join(', ')} ${route.config?.resource?.name ?? route.url}`
}
