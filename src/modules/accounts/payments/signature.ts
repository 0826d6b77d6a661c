import { createHmac, timingSafeEqual } from 'node:crypto'

/** How far a signature's timestamp may be from our clock, either way: older deliveries are replays. */
export const SIGNATURE_TOLERANCE_SECONDS = 300

const hex = (secret: string, timestamp: string, body: Buffer | string) =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the Payment-Signature header. */
export function signPayload(secret: string, body: Buffer | string, now = Date.now()): string {
  const timestamp = String(Math.floor(now / 1000))
  return `t=${timestamp},v1=${hex(secret, timestamp, body)}`
}

export type SignatureProblem = 'malformed' | 'mismatch' | 'stale'

/** Why a Payment-Signature header does not vouch for the body, or null when it does. Several v1 values (a secret being rotated) may be given. */
export function signatureProblem(header: string | undefined, body: Buffer, secret: string, now = Date.now()): SignatureProblem | null {
  if (!header || header.length > 2000) return 'malformed'
  let timestamp: string | undefined
  const candidates: string[] = []
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2)
    if (key === 't') timestamp = value
    else if (key === 'v1' && value) candidates.push(value)
  }
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || candidates.length === 0) return 'malformed'
  const expected = Buffer.from(hex(secret, timestamp, body), 'hex')
  const matches = candidates.some((candidate) => {
    const given = Buffer.from(candidate, 'hex')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!matches) return 'mismatch'
  return Math.abs(now / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS ? 'stale' : null
}
