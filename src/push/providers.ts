import { readFileSync } from 'node:fs'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.ts'
import { apnsSender } from './apns.ts'
import { fcmSender, type ServiceAccount } from './fcm.ts'
import { loggingPushSender, routingPushSender, type PushSender } from './push-sender.ts'
import { notificationDelivered } from '../core/metrics.ts'

/** FCM for Android devices and APNs for iOS ones, each when configured; what is not configured is logged instead. */
export function createPushSender(config: Config['push'], log: FastifyBaseLogger): PushSender {
  const logging = loggingPushSender(log)
  const { fcm, apns } = config
  const gcm = fcm.serviceAccountFile
    ? fcmSender(JSON.parse(readFileSync(fcm.serviceAccountFile, 'utf8')) as ServiceAccount, fcm.endpoint, log)
    : logging
  const ios =
    apns.keyFile && apns.keyId && apns.teamId && apns.topic
      ? apnsSender(
          {
            endpoint: apns.endpoint,
            key: readFileSync(apns.keyFile, 'utf8'),
            keyId: apns.keyId,
            teamId: apns.teamId,
            topic: apns.topic,
            ca: apns.caFile ? readFileSync(apns.caFile, 'utf8') : undefined,
          },
          log,
        )
      : logging
  return routingPushSender({ gcm: counted('fcm', gcm, gcm === logging), apns: counted('apns', ios, ios === logging) })
}

/** Counts each push by channel and outcome (civic_notification_deliveries_total); `logged` where no provider is set. */
function counted(channel: 'fcm' | 'apns', sender: PushSender, logsOnly: boolean): PushSender {
  return {
    async send(device, notification) {
      const outcome = await sender.send(device, notification)
      notificationDelivered(channel, logsOnly ? 'logged' : outcome)
      return outcome
    },
    close: () => sender.close(),
  }
}
