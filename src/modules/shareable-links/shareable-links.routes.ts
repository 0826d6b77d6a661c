import type { App } from '../../http/app-type.ts'

export function shareableLinkRoutes(app: App): void {
  void app
}
