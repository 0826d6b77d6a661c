/**
 * The errors a request can end in, as the wire shows them (Django REST Framework's shapes). Nothing here knows
 * about Fastify: services and repositories throw these, and the edge (src/http/errors.ts) sends them.
 */

/** Field errors as Django REST Framework shapes them: {"field": ["message", ...]}. */
export type FieldErrors = Record<string, string[]>

/** An error the client caused or may see; its body is exactly what goes on the wire. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'object' && body && 'detail' in body ? String((body as { detail: unknown }).detail) : `HTTP ${statusCode}`)
  }
}

const detail = (statusCode: number, text: string, headers?: Record<string, string>) => new ApiError(statusCode, { detail: text }, headers)

export const NotFound = (text = 'Not found.') => detail(404, text)
export const InvalidPage = () => detail(404, 'Invalid page.')
export const PermissionDenied = (text = 'You do not have permission to perform this action.') => detail(403, text)
/** No credentials: 403, as DRF answers when session authentication comes first (the web app logs out on 401). */
export const NotAuthenticated = () => detail(403, 'Authentication credentials were not provided.')
/** Bad credentials: 401 with a challenge, so clients drop the token. */
export const AuthenticationFailed = (text: string) => detail(401, text, { 'www-authenticate': 'Token' })
export const MethodNotAllowed = (method: string) => detail(405, `Method "${method}" not allowed.`)
export const ParseError = (text: string) => detail(400, text)
export const UnsupportedMediaType = (contentType: string) => detail(415, `Unsupported media type "${contentType}" in request.`)
export const Throttled = (waitSeconds: number) => {
  const wait = Math.max(1, Math.ceil(waitSeconds))
  return detail(429, `Request was throttled. Expected available in ${wait} second${wait === 1 ? '' : 's'}.`, {
    'retry-after': String(wait),
  })
}
export const ValidationFailed = (errors: FieldErrors) => new ApiError(400, errors)
export const fieldError = (field: string, message: string) => ValidationFailed({ [field]: [message] })

/** DRF's message for a related id that names no row (PrimaryKeyRelatedField's `does_not_exist`). */
export const invalidPk = (value: unknown) => `Invalid pk "${String(value)}" - object does not exist.`

/** DRF's UniqueTogetherValidator message. */
export const uniqueSet = (...fields: string[]): FieldErrors => ({
  non_field_errors: [`The fields ${fields.join(', ')} must make a unique set.`],
})
