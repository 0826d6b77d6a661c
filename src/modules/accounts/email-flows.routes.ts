import type { App } from '../../http/app-type.ts'

/** request_confirm_email, confirm_email, password-reset, password-reset-confirm, onetime_signin. */
export function emailFlowRoutes(app: App): void {
  void app
}
