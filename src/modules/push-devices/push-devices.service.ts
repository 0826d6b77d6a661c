import type { App } from '../../http/app-type.ts'
import type { PushDevice, PushNotification } from '../../push/push-sender.ts'
import { pushDevicesRepository } from './push-devices.repository.ts'

/**
 * Sends a notification to every active device of the user; answers how many devices it went to. A push
 * that fails is logged and never fails the action that caused it.
 */
export async function notifyUser(app: App, userId: number, notification: PushNotification): Promise<number> {
  const devices = (await pushDevicesRepository(app.db).activeOf(userId)) as PushDevice[]
  if (devices.length === 0) return 0
  try {
    await app.push.send(devices, notification)
  } catch (error) {
    app.log.error({ err: error, userId }, 'push notification failed')
    return 0
  }
  return devices.length
}
