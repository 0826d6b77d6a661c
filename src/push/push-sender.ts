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

export interface PushSender {
  send(devices: PushDevice[], notification: PushNotification): Promise<void>
}

/** The default sender logs what would be pushed; a GCM/FCM or APNs sender implements the same interface. */
export function loggingPushSender(log: FastifyBaseLogger): PushSender {
  return {
    async send(devices, notification) {
      for (const device of devices)
        log.info({ kind: device.kind, registration_id: device.registration_id, notification }, 'push notification')
    },
  }
}
