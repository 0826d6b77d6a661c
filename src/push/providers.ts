import { readFileSync } from 'node:fs'
import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.ts'
import { apnsSender } from './apns.ts'
import { fcmSender, type ServiceAccount } from './fcm.ts'
import { loggingPushSender, routingPushSender, type PushSender } from './push-sender.ts'

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
  return routingPushSender({ gcm, apns: ios })
}
