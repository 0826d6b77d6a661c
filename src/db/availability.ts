/**
 * Whether a failure means the database cannot serve right now (refused, dropped, terminated, too slow), as opposed
 * to a fault in the statement: such a request answers 503 with Retry-After, and may be retried.
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '57P04', // database_dropped
  '57P05', // idle_session_timeout: the server closed a session it found idle
  '57014', // query_canceled: the statement timeout, the database is too slow to answer in time
  '25P03', // idle_in_transaction_session_timeout
  '3D000', // invalid_catalog_name: the database is gone or renamed
  '28000', // invalid_authorization_specification: the role may no longer log in
  '28P01', // invalid_password: credentials rotated on the server
])

const UNAVAILABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EADDRNOTAVAIL',
])

/** What pg and pg-pool say, without a code, when a connection cannot be had or breaks under a statement. */
const UNAVAILABLE_MESSAGES = new RegExp(
  [
    'Connection terminated', // the socket closed: unexpectedly, or "due to connection timeout"
    'timeout exceeded when trying to connect', // the pool waited its connection timeout for a client
    'Query read timeout', // the client-side guard against a socket that stopped answering
    'is not queryable', // a client whose connection already failed, or was closed
    'Connection is closed',
    'is not currently accepting connections', // 55000 after ALTER DATABASE ... ALLOW_CONNECTIONS false
    'the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)',
  ].join('|'),
  'i',
)

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown }
  if (typeof code === 'string') {
    if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || code.startsWith('53')) return true // 08 connection exception, 53 insufficient resources
    if (UNAVAILABLE_NETWORK_CODES.has(code)) return true
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true
  // A connection to a name with several addresses fails with an AggregateError of each attempt.
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true
  return isDatabaseUnavailable(cause, depth + 1)
}

/** A failure after which a pooled connection must not be lent again; a statement timeout leaves it usable. */
export function isConnectionBroken(error: unknown): boolean {
  return isDatabaseUnavailable(error) && (error as { code?: unknown }).code !== '57014'
}
