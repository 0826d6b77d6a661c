import { createSign } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { PushDevice, PushNotification, PushOutcome, PushSender } from './push-sender.ts'

/** The fields of a Google service-account key file the sender uses. */
export interface ServiceAccount {
  project_id: string
  client_email: string
  private_key: string
  token_uri: string
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
const TOKEN_LIFETIME_S = 3600
/** A token is renewed this long before it expires. */
const RENEW_EARLY_MS = 5 * 60_000
const TIMEOUT_MS = 10_000

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** The OAuth 2.0 JWT-bearer grant a service account signs (RFC 7523). */
export function serviceAccountAssertion(account: ServiceAccount, nowSeconds: number): string {
  const unsigned = `${base64url({ alg: 'RS256', typ: 'JWT' })}.${base64url({
    iss: account.client_email,
    scope: SCOPE,
    aud: account.token_uri,
    iat: nowSeconds,
    exp: nowSeconds + TOKEN_LIFETIME_S,
  })}`
  const signature = createSign('RSA-SHA256').update(unsigned).sign(account.private_key).toString('base64url')
  return `${unsigned}.${signature}`
}

/**
 * Firebase Cloud Messaging, HTTP v1 API: an access token from the service account (kept until shortly before it
 * expires), then one `messages:send` per device. The Android app reads `data.url`, `data.message` and
 * `data.actor` (a JSON string), so they go as data; the notification part shows when the app is in the background.
 */
export function fcmSender(account: ServiceAccount, endpoint: string, log: FastifyBaseLogger): PushSender {
  let token: { value: string; renewAt: number } | null = null
  let pending: Promise<string> | null = null

  const accessToken = async (): Promise<string> => {
    if (token && Date.now() < token.renewAt) return token.value
    pending ??= (async () => {
      try {
        const response = await fetch(account.token_uri, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
            assertion: serviceAccountAssertion(account, Math.floor(Date.now() / 1000)),
          }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        })
        if (!response.ok) throw new Error(`FCM token endpoint answered ${response.status}`)
        const body = (await response.json()) as { access_token: string; expires_in: number }
        token = { value: body.access_token, renewAt: Date.now() + body.expires_in * 1000 - RENEW_EARLY_MS }
        return token.value
      } finally {
        pending = null
      }
    })()
    return pending
  }

  return {
    async send(device: PushDevice, notification: PushNotification): Promise<PushOutcome> {
      try {
        const data: Record<string, string> = { message: notification.message }
        if (notification.url) data.url = notification.url
        if (notification.actor) data.actor = JSON.stringify(notification.actor)
        const response = await fetch(`${endpoint}/v1/projects/${encodeURIComponent(account.project_id)}/messages:send`, {
          method: 'POST',
          headers: { authorization: `Bearer ${await accessToken()}`, 'content-type': 'application/json' },
          body: JSON.stringify({ message: { token: device.registration_id, data, notification: { body: notification.message } } }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        })
        if (response.ok) return 'sent'
        const error = (await response.json().catch(() => ({}))) as {
          error?: { status?: string; details?: { errorCode?: string }[] }
        }
        const code = error.error?.details?.find((detail) => detail.errorCode)?.errorCode ?? error.error?.status
        // The token is unknown, expired or malformed: that device will never receive anything.
        if (response.status === 404 || code === 'UNREGISTERED' || (response.status === 400 && code === 'INVALID_ARGUMENT')) return 'gone'
        if (response.status === 401) token = null
        log.warn({ status: response.status, code }, 'FCM refused a push; it stays due')
        return 'retry'
      } catch (error) {
        log.warn({ err: error }, 'FCM unreachable; the push stays due')
        return 'retry'
      }
    },
    async close() {},
  }
}
