import type { App } from '../../http/app-type.ts'

/** /api-push/device/gcm/ and /api-push/device/apns/. */
export function pushDeviceRoutes(app: App): void {
  void app
}
