import type { LightMyRequestResponse } from 'fastify'
import { abbreviate } from './nodes.ts'
import type { HttpRequest } from './requests.ts'
import { describeChanges, isExempt, type RowChange } from './row-changes.ts'

/** What was wrong with one case; thrown from the property so fast-check shrinks it. */
export class CaseFailure extends Error {
  constructor(
    readonly request: HttpRequest,
    readonly problems: Problem[],
  ) {
    super(problems.map((problem) => problem.text).join('\n'))
  }
}

export interface Problem {
  /** Groups failures of the same cause: the check that failed, the status, and the server's error. */
  key: string
  text: string
}

/**
 * 503 is the service saying on purpose that it cannot serve this now (a feature not configured, the password
 * hashing queue full, the database away) with Retry-After; it is counted and reported, not failed. Every
 * other 5xx is a defect.
 */
export const isFailedStatus = (status: number) => status >= 500 && status !== 503

/**
 * The three things every answer must satisfy, whatever was sent: no 5xx (503 aside); a 4xx leaves every row
 * as it was (bookkeeping of the attempt aside); and a 4xx with a JSON body has DRF's shape.
 */
export function judge(
  request: HttpRequest,
  responses: LightMyRequestResponse[],
  changes: RowChange[],
  serverErrors: (Error | undefined)[],
): Problem[] {
  const problems: Problem[] = []
  responses.forEach((response, i) => {
    if (isFailedStatus(response.statusCode)) {
      const error = serverErrors[i]
      const cause = error ? errorSummary(error) : 'no error reached the error handler'
      problems.push({
        key: `${response.statusCode} ${error ? errorHeadline(error) : cause}`,
        text: `answered ${response.statusCode} ${abbreviate(response.body, 200)}\n    server: ${cause}`,
      })
    }
  })
  const rejected = responses.every((response) => response.statusCode >= 400 && response.statusCode < 500)
  const kept = changes.filter((change) => !isExempt(change))
  if (rejected && kept.length) {
    const statuses = responses.map((response) => response.statusCode).join(', ')
    problems.push({
      key: `rejected but changed ${[...new Set(kept.map((c) => `${c.operation} ${c.table}`))].join(', ')}`,
      text: `rejected with ${statuses} but changed rows: ${describeChanges(kept)}`,
    })
  }
  for (const response of responses) {
    if (response.statusCode < 400 || response.statusCode >= 500 || request.method === 'HEAD') continue
    if (!/json/.test(String(response.headers['content-type'] ?? ''))) continue
    let body: unknown
    try {
      body = response.json()
    } catch {
      problems.push({
        key: `${response.statusCode} invalid JSON`,
        text: `answered ${response.statusCode} with a body that is not JSON: ${abbreviate(response.body, 200)}`,
      })
      continue
    }
    if (!drfShaped(body))
      problems.push({
        key: `${response.statusCode} not DRF-shaped`,
        text: `answered ${response.statusCode} with a body DRF would not give: ${abbreviate(response.body, 200)}`,
      })
  }
  return problems
}

/** `{"detail": "..."}`, or field names to lists of messages (nested serializers nest objects or lists of them). */
function drfShaped(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false
  const entries = Object.entries(body)
  if (entries.length === 0) return false
  if (entries.length === 1 && entries[0][0] === 'detail') return typeof entries[0][1] === 'string'
  return entries.every(([, value]) => fieldErrors(value))
}

function fieldErrors(value: unknown): boolean {
  if (Array.isArray(value))
    return (
      value.length > 0 &&
      (value.every((item) => typeof item === 'string') ||
        value.every((item) => item && typeof item === 'object' && (Object.keys(item).length === 0 || drfShaped(item))))
    )
  return !!value && typeof value === 'object' && drfShaped(value)
}

function errorHeadline(error: Error): string {
  return `${error.name}: ${abbreviate(error.message.split('\n')[0], 120)}`
}

/** The error and where in the service it came from: the first frames under src/. */
export function errorSummary(error: Error): string {
  const frames = (error.stack ?? '')
    .split('\n')
    .filter((line) => line.includes('/src/'))
    .slice(0, 3)
    .map((line) =>
      line
        .trim()
        .replace(/^at /, '')
        .replace(/\(?file:\/\/\S*?\/src\//, 'src/')
        .replace(/\)$/, ''),
    )
  const code = (error as { code?: string }).code
  return `${errorHeadline(error)}${code ? ` [${code}]` : ''}${frames.length ? ` at ${frames.join(' < ')}` : ''}`
}

/** A request as a reader can retype it: method, URL, the headers that matter and the body. */
export function describeRequest(request: HttpRequest): string {
  const headers = Object.entries(request.headers)
    .filter(([name]) => name !== 'authorization' || request.identity === 'bad')
    .map(([name, value]) => `${name}: ${abbreviate(value, 80)}`)
  const who = request.identity === 'bad' ? '' : ` as ${request.identity}`
  const body = request.payload ? `\n    body (${request.payload.length} bytes): ${abbreviate(request.payload.toString('latin1'), 300)}` : ''
  return `${request.method} ${abbreviate(request.url, 300)}${who}${headers.length ? `\n    ${headers.join('\n    ')}` : ''}${body}`
}
