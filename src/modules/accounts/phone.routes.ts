import type { App } from '../../http/app-type.ts'

/** verification_sms_send, verification_add, verification_remove. */
export function phoneRoutes(app: App): void {
  void app
}
