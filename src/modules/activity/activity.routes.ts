import type { App } from '../../http/app-type.ts'

export function activityRoutes(app: App): void {
  void app
}
