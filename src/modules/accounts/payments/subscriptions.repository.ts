import { sql, type Kysely, type Selectable } from 'kysely'
import type { Database, PaymentSubscriptions } from '../../../db/database.ts'
import { iso, isoOrNull } from '../../../core/time.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../../db/paging.ts'
import type { Subscription, SubscriptionStatus } from './payments.schemas.ts'

export type SubscriptionRow = Selectable<PaymentSubscriptions>

export function toSubscription(row: SubscriptionRow, checkoutUrl: string | null = null): Subscription {
  return {
    id: row.id,
    plan: row.plan,
    status: row.status as SubscriptionStatus,
    checkout_url: checkoutUrl,
    current_period_end: isoOrNull(row.current_period_end),
    created_at: iso(row.created_at),
  }
}

export function subscriptionsRepository(db: Kysely<Database>) {
  return {
    /** A page of every subscription of the user, newest first. */
    async page(userId: number, list: ListRequest): Promise<RowsPage<SubscriptionRow>> {
      const filtered = db.selectFrom('payment_subscriptions').where('user_id', '=', userId)
      return pageOfRows<SubscriptionRow>(list, filtered, (q) => q.selectAll(), [{ expression: sql`id`, direction: 'desc' }])
    },

    /** Subscriptions that are not canceled, newest first: normally one at most. */
    async live(userId: number): Promise<SubscriptionRow[]> {
      return db
        .selectFrom('payment_subscriptions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('status', '<>', 'canceled')
        .orderBy('id', 'desc')
        .execute()
    },

    async create(values: { user_id: number; provider: string; external_id: string; plan: string }): Promise<SubscriptionRow> {
      return db.insertInto('payment_subscriptions').values(values).returningAll().executeTakeFirstOrThrow()
    },

    /** Locks the row, so that concurrent events for one subscription apply one after the other. */
    async byExternalIdForUpdate(externalId: string): Promise<SubscriptionRow | undefined> {
      return db.selectFrom('payment_subscriptions').selectAll().where('external_id', '=', externalId).forUpdate().executeTakeFirst()
    },

    async setStatus(ids: number[], status: SubscriptionStatus, periodEnd?: Date): Promise<SubscriptionRow[]> {
      if (ids.length === 0) return []
      return db
        .updateTable('payment_subscriptions')
        .set({ status, modified_at: sql`now()`, ...(periodEnd ? { current_period_end: periodEnd } : {}) })
        .where('id', 'in', ids)
        .returningAll()
        .execute()
    },

    /** The user's payment verification follows their subscriptions: true while one is active. */
    async refreshPaymentFlag(userId: number): Promise<void> {
      const active = sql<boolean>`exists (select 1 from payment_subscriptions where user_id = ${userId} and status = 'active')`
      await db
        .updateTable('users')
        .set({ is_payment_verified: active, modified_at: sql`now()` })
        .where('id', '=', userId)
        .where('is_payment_verified', 'is distinct from', active)
        .execute()
    },

    /** Records a provider event; false when it was recorded before (a redelivery). */
    async recordEvent(eventId: string, type: string): Promise<boolean> {
      const inserted = await db
        .insertInto('payment_webhook_events')
        .values({ event_id: eventId, type })
        .onConflict((oc) => oc.column('event_id').doNothing())
        .returning('event_id')
        .executeTakeFirst()
      return inserted !== undefined
    },
  }
}
