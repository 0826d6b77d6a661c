import { Type, type Static } from 'typebox'
import { Id, Nullable, Timestamp, Url } from '../../../http/schemas.ts'

/** What supporters can pay for; the checkout page prices them. */
export const PLANS = ['supporter-monthly', 'supporter-yearly'] as const
export type Plan = (typeof PLANS)[number]

export const STATUSES = ['pending', 'active', 'past_due', 'canceled'] as const
export type SubscriptionStatus = (typeof STATUSES)[number]

export const SubscribeBody = Type.Object({ plan: Type.Enum([...PLANS], { description: PLANS.join(' or ') }) })

export const Subscription = Type.Object({
  id: Id,
  plan: Type.String(),
  status: Type.Enum([...STATUSES]),
  checkout_url: Nullable(Url),
  current_period_end: Nullable(Timestamp),
  created_at: Timestamp,
})
export type Subscription = Static<typeof Subscription>

export const PageQuery = Type.Object({
  page: Type.Optional(Type.String({ description: 'page number from 1, or "last"' })),
  page_size: Type.Optional(Type.String({ description: 'items per page, 10 by default, at most 100' })),
})

/** Provider events, as the webhook receives them. */
export const EVENT_STATUS: Record<string, SubscriptionStatus> = {
  'subscription.activated': 'active',
  'subscription.renewed': 'active',
  'subscription.past_due': 'past_due',
  'subscription.canceled': 'canceled',
}
