import type { App } from '../../http/app-type.ts'

export function notificationRoutes(app: App): void {
  void app
}
