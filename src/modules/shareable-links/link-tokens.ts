import { timingSafeEqual } from 'node:crypto'
import { hmac } from '../accounts/secrets.ts'

/**
 * A link's token: its id, its expiry (seconds since 1970) and an HMAC of both under the service's signing key.
 * Unguessable, and checked before the database is asked, so forged tokens cost nothing; the stored copy is what
 * makes revocation and expiry authoritative.
 */
export function signLink(key: Buffer, id: number, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000)
  return `${id}.${expires}.${signature(key, id, expires)}`
}

/** The id a well-signed token names, or null for anything forged or malformed. */
export function verifiedLinkId(key: Buffer, token: string): number | null {
  const match = /^(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token)
  if (!match) return null
  const [, id, expires, given] = match
  const expected = Buffer.from(signature(key, Number(id), Number(expires)))
  const sent = Buffer.from(given)
  return expected.length === sent.length && timingSafeEqual(expected, sent) ? Number(id) : null
}

function signature(key: Buffer, id: number, expires: number): string {
  return hmac(key, 'shareable-link', id, expires).toString('base64url')
}
