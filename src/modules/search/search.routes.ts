import type { App } from '../../http/app-type.ts'

export function searchRoutes(app: App): void {
  void app
}
