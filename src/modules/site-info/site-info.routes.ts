import type { App } from '../../http/app-type.ts'

export function siteInfoRoutes(app: App): void {
  void app
}
