import type { App } from '../../http/app-type.ts'

/** Friends: requests, acceptance, removal and lists. */
export function friendRoutes(app: App): void {
  void app
}
