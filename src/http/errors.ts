import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../db/availability.ts'
import { constraintError } from '../core/constraint-errors.ts'
import { ApiError, type FieldErrors } from '../core/errors.ts'

/** Ajv error -> the message DRF's fields would give for the same problem. */
function ajvMessage(error: { keyword: string; params: Record<string, unknown>; message?: string }, context: string): string {
  const p = error.params
  const inQuery = context === 'querystring'
  switch (error.keyword) {
    case 'required':
      return 'This field is required.'
    case 'type': {
      const expected = String(p.type)
      if (expected.includes('null') && p.type !== 'null') return messageForType(expected.replace(',null', ''), inQuery)
      return messageForType(expected, inQuery)
    }
    case 'minimum':
      return `Ensure this value is greater than or equal to ${p.limit}.`
    case 'maximum':
      return `Ensure this value is less than or equal to ${p.limit}.`
    case 'exclusiveMinimum':
      return `Ensure this value is greater than ${p.limit}.`
    case 'exclusiveMaximum':
      return `Ensure this value is less than ${p.limit}.`
    case 'minLength':
      return p.limit === 1 ? 'This field may not be blank.' : `Ensure this field has at least ${p.limit} characters.`
    case 'maxLength':
      return `Ensure this field has no more than ${p.limit} characters.`
    case 'maxItems':
      return `Ensure this field has no more than ${p.limit} elements.`
    case 'minItems':
      return p.limit === 1 ? 'This list may not be empty.' : `Ensure this field has at least ${p.limit} elements.`
    case 'enum':
    case 'const':
      return 'Select a valid choice.'
    case 'format':
      return p.format === 'email'
        ? 'Enter a valid email address.'
        : p.format === 'uri'
          ? 'Enter a valid URL.'
          : `Enter a valid ${p.format}.`
    case 'pattern':
      return 'This value does not match the required pattern.'
    case 'additionalProperties':
      return `Unexpected field "${p.additionalProperty}".`
    case 'anyOf':
    case 'oneOf':
      return 'Invalid value.'
    default:
      return error.message ?? 'Invalid value.'
  }
}

function messageForType(type: string, inQuery: boolean): string {
  switch (type) {
    case 'integer':
      return inQuery ? 'Enter a whole number.' : 'A valid integer is required.'
    case 'number':
      return inQuery ? 'Enter a number.' : 'A valid number is required.'
    case 'boolean':
      return 'Must be a valid boolean.'
    case 'string':
      return 'Not a valid string.'
    case 'array':
      return 'Expected a list of items.'
    case 'object':
      return 'Invalid data. Expected a dictionary.'
    case 'null':
      return 'This field may not be null.'
    default:
      return `Expected ${type}.`
  }
}

/** Ajv validation errors -> {"field": ["message"]}; nested paths become dotted field names. */
export function validationBody(error: FastifyError): FieldErrors {
  const context = (error as { validationContext?: string }).validationContext ?? 'body'
  const out: FieldErrors = {}
  for (const item of withoutUnionNoise(error.validation ?? [])) {
    const params: Record<string, unknown> = item.params
    const path = item.instancePath.split('/').filter(Boolean)
    if (item.keyword === 'required') path.push(String(params.missingProperty))
    if (item.keyword === 'type' && path.length === 0 && context === 'body') {
      out.non_field_errors = [`Invalid data. Expected a dictionary, but got ${params.type === 'object' ? 'another type' : params.type}.`]
      continue
    }
    const field = path.length ? path.join('.') : 'non_field_errors'
    const message = ajvMessage(item, context)
    const list = (out[field] ??= [])
    if (!list.includes(message)) list.push(message)
  }
  return out
}

type AjvItem = NonNullable<FastifyError['validation']>[number]

/**
 * A nullable field that fails reports the failure of its non-null branch only: "may not be null" and the
 * union's own "Invalid value." are noise when a more precise message exists.
 */
function withoutUnionNoise(items: AjvItem[]): AjvItem[] {
  const unions = new Set(items.filter((item) => item.keyword === 'anyOf' || item.keyword === 'oneOf').map((item) => item.instancePath))
  if (unions.size === 0) return items
  const precise = (path: string) =>
    items.some(
      (item) =>
        item.instancePath.startsWith(path) &&
        item.keyword !== 'anyOf' &&
        item.keyword !== 'oneOf' &&
        !(item.keyword === 'type' && (item.params as { type?: string }).type === 'null'),
    )
  return items.filter((item) => {
    if (!unions.has(item.instancePath) || !precise(item.instancePath)) return true
    return !(
      item.keyword === 'anyOf' ||
      item.keyword === 'oneOf' ||
      (item.keyword === 'type' && (item.params as { type?: string }).type === 'null')
    )
  })
}

/**
 * Failures of the router, before any route runs: a path that cannot be percent-decoded (`/api/questions/%FF/`)
 * or a parameter longer than any value names no object, so they answer DRF's 404; anything else its status.
 */
export function routerErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(404).send({ detail: 'Not found.' })
    return
  }
  reply.code(error.statusCode && error.statusCode >= 400 ? error.statusCode : 400).send({ detail: error.message })
}

/** One handler turns every failure into a DRF-shaped body; 5xx details stay in the log. */
export function errorHandler(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    return reply.code(error.statusCode).headers(error.headers).send(error.body)
  }
  if ((error as FastifyError).validation) {
    // An id in the path that is not a number names no object: DRF answers 404, not 400.
    if ((error as { validationContext?: string }).validationContext === 'params') return reply.code(404).send({ detail: 'Not found.' })
    return reply.code(400).send(validationBody(error as FastifyError))
  }
  const code = (error as FastifyError).code
  const status = (error as FastifyError).statusCode ?? 500
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return reply.code(413).send({ detail: `Request body exceeds the limit of ${request.server.initialConfig.bodyLimit} bytes.` })
  }
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return reply.code(415).send({ detail: `Unsupported media type "${request.headers['content-type'] ?? ''}" in request.` })
  }
  if (status === 429) {
    const retry = Number(reply.getHeader('retry-after')) || 1
    return reply.code(429).send({ detail: `Request was throttled. Expected available in ${retry} second${retry === 1 ? '' : 's'}.` })
  }
  if (status >= 400 && status < 500) {
    return reply.code(status).send({ detail: error.message })
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, 'database unavailable')
    return reply.code(503).header('retry-after', '5').send({ detail: 'The service is temporarily unavailable; try again shortly.' })
  }
  const refused = constraintError(error)
  if (refused) {
    request.log.info({ err: error }, 'request refused by a database constraint')
    return reply.code(refused.statusCode).send(refused.body)
  }
  request.log.error({ err: error }, 'request failed')
  return reply.code(500).send({ detail: 'A server error occurred.' })
}
