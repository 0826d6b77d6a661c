import { randomBytes } from 'node:crypto'
import type { Config } from '../../../config.ts'
import type { Plan } from './payments.schemas.ts'
import { signPayload } from './signature.ts'

/** What the service needs from a payment provider; its events arrive at the webhook. */
export interface PaymentProvider {
  /** Stored with each subscription, so that subscriptions of a former provider stay recognisable. */
  readonly name: string
  /** Opens a subscription at the provider: its id there, and the page where the user pays. */
  createCheckout(subscription: { userId: number; plan: Plan }): Promise<{ externalId: string; checkoutUrl: string }>
  /** Stops billing; throws when the provider cannot be reached, so that nothing changes here either. */
  cancel(externalId: string): Promise<void>
}

/**
 * A hosted checkout page at PAYMENT_CHECKOUT_URL: the user pays at `?subscription=<id>&plan=<plan>`, the
 * page's operator sends signed events to the webhook, and cancellations go back to `<url>/cancel` as
 * `{"subscription": <id>}`, signed with the same secret and header as the events.
 */
export function hostedCheckout(checkoutUrl: string, secret: string): PaymentProvider {
  return {
    name: 'hosted',
    async createCheckout({ plan }) {
      const externalId = `sub_${randomBytes(18).toString('base64url')}`
      const url = new URL(checkoutUrl)
      url.searchParams.set('subscription', externalId)
      url.searchParams.set('plan', plan)
      return { externalId, checkoutUrl: url.toString() }
    },
    async cancel(externalId) {
      const url = new URL(checkoutUrl)
      url.search = ''
      url.pathname = `${url.pathname.replace(/\/+$/, '')}/cancel`
      const body = JSON.stringify({ subscription: externalId })
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'payment-signature': signPayload(secret, body) },
        body,
        signal: AbortSignal.timeout(10_000),
      })
      if (!response.ok) throw new Error(`payment provider answered ${response.status} to a cancellation`)
    },
  }
}

/** The configured provider, or null when payments are off (no webhook secret or no checkout page). */
export function configuredProvider(config: Config): PaymentProvider | null {
  if (!config.paymentWebhookSecret || !config.paymentCheckoutUrl) return null
  return hostedCheckout(config.paymentCheckoutUrl, config.paymentWebhookSecret)
}
