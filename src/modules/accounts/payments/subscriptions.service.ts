import type { Kysely } from 'kysely'
import type { Database } from '../../../db/database.ts'
import { ApiError, NotFound, ValidationFailed } from '../../../core/errors.ts'
import { EVENT_STATUS, type Plan } from './payments.schemas.ts'
import type { PaymentProvider } from './provider.ts'
import { subscriptionsRepository, type SubscriptionRow } from './subscriptions.repository.ts'
import type { PaymentEvent } from './webhook.ts'

export const notConfigured = () => new ApiError(503, { detail: 'Payments are not configured.' })
const unreachable = () => new ApiError(503, { detail: 'The payment provider could not be reached. Try again later.' })

/** Where subscriptions are kept and paid, and where a provider that failed is told. */
export interface Payments {
  db: Kysely<Database>
  provider: PaymentProvider | null
  logError: (error: unknown, message: string) => void
}

/** Cancels at the provider first: when it cannot be reached, nothing changes here. */
async function cancelAll(payments: Payments, rows: SubscriptionRow[], userId: number): Promise<SubscriptionRow[]> {
  const { db, provider } = payments
  if (!provider) throw notConfigured()
  try {
    for (const row of rows) await provider.cancel(row.external_id)
  } catch (error) {
    payments.logError(error, 'payment cancellation failed')
    throw unreachable()
  }
  return db.transaction().execute(async (trx) => {
    const repository = subscriptionsRepository(trx)
    const canceled = await repository.setStatus(
      rows.map((row) => row.id),
      'canceled',
    )
    await repository.refreshPaymentFlag(userId)
    return canceled
  })
}

/** Starts a subscription: the new row, and the provider's page where the user pays. */
export async function subscribe(payments: Payments, userId: number, plan: Plan): Promise<{ row: SubscriptionRow; checkoutUrl: string }> {
  const { db, provider } = payments
  if (!provider) throw notConfigured()
  const live = await subscriptionsRepository(db).live(userId)
  if (live.some((row) => row.status !== 'pending')) {
    throw ValidationFailed({ non_field_errors: ['You already have a subscription. Cancel it before starting another.'] })
  }
  // A new checkout replaces one left unfinished, so that it cannot be paid as well.
  if (live.length) await cancelAll(payments, live, userId)
  let checkout: Awaited<ReturnType<PaymentProvider['createCheckout']>>
  try {
    checkout = await provider.createCheckout({ userId, plan })
  } catch (error) {
    payments.logError(error, 'payment checkout failed')
    throw unreachable()
  }
  const row = await subscriptionsRepository(db).create({ user_id: userId, provider: provider.name, external_id: checkout.externalId, plan })
  return { row, checkoutUrl: checkout.checkoutUrl }
}

/** Cancels the user's subscriptions; answers the current one, canceled. */
export async function unsubscribe(payments: Payments, userId: number): Promise<SubscriptionRow> {
  const live = await subscriptionsRepository(payments.db).live(userId)
  if (live.length === 0) throw NotFound('You have no subscription.')
  const canceled = await cancelAll(payments, live, userId)
  return canceled.find((row) => row.id === live[0].id)!
}

export type EventOutcome = 'applied' | 'duplicate' | 'ignored'

/**
 * Applies an event once, in one transaction with the user's payment flag. Events of unknown types or
 * subscriptions are recorded and ignored (a redelivery would not help); a canceled subscription stays
 * canceled, since events may arrive out of order.
 */
export async function applyEvent(db: Kysely<Database>, event: PaymentEvent): Promise<EventOutcome> {
  return db.transaction().execute(async (trx) => {
    const repository = subscriptionsRepository(trx)
    if (!(await repository.recordEvent(event.id, event.type))) return 'duplicate'
    const status = Object.hasOwn(EVENT_STATUS, event.type) ? EVENT_STATUS[event.type] : undefined
    const subscription = await repository.byExternalIdForUpdate(event.subscription)
    if (!status || !subscription || subscription.status === 'canceled') return 'ignored'
    await repository.setStatus([subscription.id], status, event.periodEnd)
    await repository.refreshPaymentFlag(subscription.user_id)
    return 'applied'
  })
}
