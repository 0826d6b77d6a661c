import type { FastifyBaseLogger } from 'fastify'

export interface PushDevice {
  kind: 'gcm' | 'apns'
  registration_id: string
}

/** What the phone apps read from a push: `url`, `message` and, on Android, the `actor`. */
export interface PushNotification {
  message: string
  url?: string
  actor?: { id: number; name: string; username: string }
}

/** sent: the provider took it; gone: the provider says the device no longer exists; retry: try again later. */
export type PushOutcome = 'sent' | 'gone' | 'retry'

export interface PushSender {
  send(device: PushDevice, notification: PushNotification): Promise<PushOutcome>
  close(): Promise<void>
}

/** Without a provider configured, what would be pushed is logged. */
export function loggingPushSender(log: FastifyBaseLogger): PushSender {
  return {
    async send(device, notification) {
      log.info({ kind: device.kind, registration_id: device.registration_id, notification }, 'push notification (no provider configured)')
      return 'sent'
    },
    async close() {},
  }
}

/** Sends each device through its own provider's sender. */
export function routingPushSender(senders: Record<PushDevice['kind'], PushSender>): PushSender {
  return {
    send: (device, notification) => senders[device.kind].send(device, notification),
    async close() {
      await Promise.all(Object.values(senders).map((sender) => sender.close()))
    },
  }
}
