/**
 * Secrets out of the log. Every line is redacted once, as the JSON text pino is about to write, so the request
 * line, error lines (messages and stacks quoting a URL) and lines of libraries are all covered by the same rules.
 * docs/operations.md lists what is redacted.
 */

export const REDACTED = '[REDACTED]'

/**
 * Query parameters whose values are secrets, compared in lower case after decoding: the application key, one-time
 * codes and OAuth codes, states and verifiers, tokens of every name, passwords, reset links' uid/token pairs.
 */
const SECRET_PARAMETERS = new Set([
  'appauthorization',
  'authorization',
  'auth_override',
  'token',
  'access_token',
  'auth_token',
  'authtoken',
  'id_token',
  'refresh_token',
  'key',
  'api_key',
  'apikey',
  'secret',
  'client_secret',
  'code',
  'code_verifier',
  'state',
  'otp',
  'signature',
  'sig',
  'uid',
  'uidb64',
  'password',
  'new_password',
  'old_password',
])

/** Log fields (JSON keys) whose string values are secrets wherever they appear. */
const SECRET_FIELDS = [
  'authorization',
  'appauthorization',
  'cookie',
  'set-cookie',
  'password',
  'new_password',
  'old_password',
  'token',
  'auth_token',
  'access_token',
  'refresh_token',
  'id_token',
  'registration_id',
  'secret',
  'client_secret',
  'api_key',
  'code_verifier',
]

/**
 * Paths with a secret segment: push registration ids (device tokens), and the web app's links (confirmation,
 * password reset, sign-in by link, token hand-over, Django-style reset links) should one reach the service.
 * Each pattern keeps its first group and redacts the segments after it up to the next "/", "?", quote or space.
 */
const SECRET_SEGMENT = String.raw`[^/?#\s"'<>\\]+`
const SECRET_PATHS: Array<[RegExp, number]> = [
  [/(\/api-push\/device\/[^/?#\s"'<>\\]+\/)/gi, 1],
  [/(\/(?:confirm-email|confirm_email|authcode|authtoken)\/)/gi, 1],
  [/(\/password-reset\/(?!confirm\/))/gi, 1],
  [/(\/(?:password[-_/])?reset\/confirm\/|\/reset\/)/gi, 2],
]
const pathPatterns = SECRET_PATHS.map(([prefix, segments]) => {
  const secret = Array.from({ length: segments }, () => SECRET_SEGMENT).join('/')
  return new RegExp(`${prefix.source}${secret}`, prefix.flags)
})

// A parameter's name and value inside any text: a URL, an error message, a JSON string (where "\" escapes, so a
// value stops before one and the JSON stays valid).
const PARAMETER = /([?&;])([^=&#\s"'<>?\\]+)=([^&#\s"'<>\\]*)/g
// user:password@ in a connection URL (postgres://, redis://, smtp://...).
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@"'\\]*):([^@/\s"'\\]+)@/gi
const FIELD = new RegExp(
  `("(?:${SECRET_FIELDS.map((name) => name.replace(/[-]/g, '\\-')).join('|')})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`,
  'gi',
)

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).trim().toLowerCase()
  } catch {
    return raw.toLowerCase()
  }
}

/** The text with every secret the rules above recognise replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  let out = text.replace(PARAMETER, (match, separator: string, name: string) =>
    SECRET_PARAMETERS.has(decodedName(name)) ? `${separator}${name}=${REDACTED}` : match,
  )
  for (const pattern of pathPatterns) out = out.replace(pattern, (_match, prefix: string) => `${prefix}${REDACTED}`)
  out = out.replace(URL_PASSWORD, `$1:${REDACTED}@`)
  return out.replace(FIELD, `$1"${REDACTED}"`)
}
