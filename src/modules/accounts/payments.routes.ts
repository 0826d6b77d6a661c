import type { App } from '../../http/app-type.ts'

/** payment_subscription, payment_subscription_list and the provider's webhook. */
export function paymentRoutes(app: App): void {
  void app
}
