import type { App } from '../../http/app-type.ts'

/** Analytics events the clients report (analytics_event/*). */
export function analyticsRoutes(app: App): void {
  void app
}
