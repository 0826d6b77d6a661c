import { createPrivateKey, sign, type KeyObject } from 'node:crypto'
import http2 from 'node:http2'
import type { FastifyBaseLogger } from 'fastify'
import type { PushDevice, PushNotification, PushOutcome, PushSender } from './push-sender.ts'

export interface ApnsOptions {
  endpoint: string
  /** The .p8 signing key's PEM text, its key id, the team id and the app's bundle id (the topic). */
  key: string
  keyId: string
  teamId: string
  topic: string
  /** A certificate authority to trust besides the system's (a test stand-in's). */
  ca?: string
}

/** Apple accepts a provider token for an hour and refuses one renewed more often than every 20 minutes. */
const TOKEN_REUSE_MS = 50 * 60_000
const TIMEOUT_MS = 10_000
/** Reasons Apple gives for a device token that will never work again. */
const GONE_REASONS = new Set(['BadDeviceToken', 'Unregistered', 'DeviceTokenNotForTopic'])

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')

/** The ES256 provider token of token-based authentication. */
export function providerToken(key: KeyObject, keyId: string, teamId: string, nowSeconds: number): string {
  const unsigned = `${base64url({ alg: 'ES256', kid: keyId })}.${base64url({ iss: teamId, iat: nowSeconds })}`
  const signature = sign('sha256', Buffer.from(unsigned), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')
  return `${unsigned}.${signature}`
}

/**
 * Apple Push Notification service over HTTP/2: one session kept open for every push (reopened when it closes),
 * `POST /3/device/<token>` with the provider token. The iOS app reads `url` from the payload.
 */
export function apnsSender(options: ApnsOptions, log: FastifyBaseLogger): PushSender {
  const key = createPrivateKey(options.key)
  let session: http2.ClientHttp2Session | null = null
  let token: { value: string; renewAt: number } | null = null

  const open = () => {
    if (session && !session.closed && !session.destroyed) return session
    const next = http2.connect(options.endpoint, options.ca ? { ca: options.ca } : {})
    next.on('error', (error) => log.warn({ err: error }, 'APNs connection failed'))
    next.on('close', () => {
      if (session === next) session = null
    })
    next.unref()
    session = next
    return next
  }
  const bearer = () => {
    if (!token || Date.now() >= token.renewAt) {
      token = {
        value: providerToken(key, options.keyId, options.teamId, Math.floor(Date.now() / 1000)),
        renewAt: Date.now() + TOKEN_REUSE_MS,
      }
    }
    return token.value
  }

  const post = (device: PushDevice, body: string) =>
    new Promise<{ status: number; reason?: string }>((resolve, reject) => {
      const request = open().request({
        ':method': 'POST',
        ':path': `/3/device/${encodeURIComponent(device.registration_id)}`,
        authorization: `bearer ${bearer()}`,
        'apns-topic': options.topic,
        'apns-push-type': 'alert',
        'content-type': 'application/json',
      })
      request.setTimeout(TIMEOUT_MS, () => request.close(http2.constants.NGHTTP2_CANCEL))
      let status = 0
      const chunks: Buffer[] = []
      request.on('response', (headers) => (status = Number(headers[':status'])))
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const text = Buffer.concat(chunks).toString()
        let reason: string | undefined
        try {
          reason = text ? (JSON.parse(text) as { reason?: string }).reason : undefined
        } catch {
          reason = undefined
        }
        resolve({ status, reason })
      })
      request.on('error', reject)
      request.end(body)
    })

  return {
    async send(device, notification: PushNotification): Promise<PushOutcome> {
      const payload = JSON.stringify({ aps: { alert: { body: notification.message }, sound: 'default' }, url: notification.url ?? '/' })
      try {
        const { status, reason } = await post(device, payload)
        if (status === 200) return 'sent'
        if (status === 410 || (status === 400 && reason && GONE_REASONS.has(reason))) return 'gone'
        if (status === 403 && reason === 'ExpiredProviderToken') token = null
        log.warn({ status, reason }, 'APNs refused a push; it stays due')
        return 'retry'
      } catch (error) {
        log.warn({ err: error }, 'APNs unreachable; the push stays due')
        return 'retry'
      }
    },
    async close() {
      const current = session
      session = null
      if (current && !current.closed) await new Promise<void>((resolve) => current.close(() => resolve()))
    },
  }
}
