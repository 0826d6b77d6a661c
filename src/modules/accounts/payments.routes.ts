import { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import { sql } from 'kysely'
import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { ApiError, NotFound, ValidationFailed } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { ErrorBody, FieldErrorsBody, Page } from '../../http/schemas.ts'
import { PageQuery, SubscribeBody, Subscription } from './payments/payments.schemas.ts'
import { configuredProvider, type PaymentProvider } from './payments/provider.ts'
import { signatureProblem } from './payments/signature.ts'
import { subscriptionsRepository, toSubscription, type SubscriptionRow } from './payments/subscriptions.repository.ts'
import { applyEvent, parseEvent } from './payments/webhook.ts'
import { signedIn } from '../../http/permissions.ts'

/** Field errors, or a detail when the body is not JSON or not signed. */
const BadRequest = Type.Union([FieldErrorsBody, ErrorBody])
const errors = { 400: BadRequest, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody, 503: ErrorBody }
const Detail = Type.Object({ detail: Type.String() })
const notConfigured = () => new ApiError(503, { detail: 'Payments are not configured.' })
const unreachable = () => new ApiError(503, { detail: 'The payment provider could not be reached. Try again later.' })

const SIGNATURE_PROBLEMS = {
  malformed: 'Missing or malformed Payment-Signature header.',
  mismatch: 'Invalid signature.',
  stale: 'The signature timestamp is outside the tolerance window.',
}

/** The webhook's body exactly as sent: the signature covers bytes, not the parsed object. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>()

/** payment_subscription, payment_subscription_list and the provider's webhook. */
export function paymentRoutes(app: App, provider: PaymentProvider | null = configuredProvider(app.config)): void {
  const resource = (name: string, description: string) => ({ name, description })

  /** Cancels at the provider first: when it cannot be reached, nothing changes here. */
  async function cancelAll(rows: SubscriptionRow[], userId: number): Promise<SubscriptionRow[]> {
    if (!provider) throw notConfigured()
    try {
      for (const row of rows) await provider.cancel(row.external_id)
    } catch (error) {
      app.log.error({ err: error }, 'payment cancellation failed')
      throw unreachable()
    }
    return app.db.transaction().execute(async (trx) => {
      const canceled = await subscriptionsRepository(trx).setStatus(
        rows.map((row) => row.id),
        'canceled',
      )
      await subscriptionsRepository(trx).refreshPaymentFlag(userId)
      return canceled
    })
  }

  app.get('/auth/payment_subscription/', {
    schema: { summary: 'Your current subscription: the latest one not canceled', response: { 200: Subscription, ...errors } },
    config: {
      access: 'signed-in',
      resource: resource('Payment Subscription', 'Support the service with a subscription; an active one verifies your account.'),
    },
    handler: async (request) => {
      const [current] = await subscriptionsRepository(app.db).live(signedIn(request).id)
      if (!current) throw NotFound('You have no subscription.')
      return toSubscription(current)
    },
  })

  app.post('/auth/payment_subscription/', {
    schema: {
      summary: 'Start a subscription: answers the checkout page where you pay',
      body: SubscribeBody,
      response: { 201: Subscription, ...errors },
    },
    config: { access: 'signed-in' },
    handler: async (request, reply) => {
      if (!provider) throw notConfigured()
      const userId = signedIn(request).id
      const live = await subscriptionsRepository(app.db).live(userId)
      if (live.some((row) => row.status !== 'pending')) {
        throw ValidationFailed({ non_field_errors: ['You already have a subscription. Cancel it before starting another.'] })
      }
      // A new checkout replaces one left unfinished, so that it cannot be paid as well.
      if (live.length) await cancelAll(live, userId)
      let checkout: Awaited<ReturnType<PaymentProvider['createCheckout']>>
      try {
        checkout = await provider.createCheckout({ userId, plan: request.body.plan })
      } catch (error) {
        request.log.error({ err: error }, 'payment checkout failed')
        throw unreachable()
      }
      const row = await subscriptionsRepository(app.db).create({
        user_id: userId,
        provider: provider.name,
        external_id: checkout.externalId,
        plan: request.body.plan,
      })
      return reply.code(201).send(toSubscription(row, checkout.checkoutUrl))
    },
  })

  app.delete('/auth/payment_subscription/', {
    schema: { summary: 'Cancel your subscription; answers it, canceled', response: { 200: Subscription, ...errors } },
    config: { access: 'signed-in' },
    handler: async (request) => {
      const live = await subscriptionsRepository(app.db).live(signedIn(request).id)
      if (live.length === 0) throw NotFound('You have no subscription.')
      const canceled = await cancelAll(live, signedIn(request).id)
      return toSubscription(canceled.find((row) => row.id === live[0].id)!)
    },
  })

  app.get('/auth/payment_subscription_list/', {
    schema: { summary: 'All your subscriptions, newest first', querystring: PageQuery, response: { 200: Page(Subscription), ...errors } },
    config: {
      access: 'signed-in',
      resource: resource('Payment Subscription List', 'Every subscription you started, canceled ones included.'),
    },
    handler: async (request) => {
      const result = await pageOfRows<SubscriptionRow>(
        request,
        subscriptionsRepository(app.db).ofUser(signedIn(request).id),
        (q) => q.selectAll(),
        [{ expression: sql`id`, direction: 'desc' }],
      )
      return listing(request, result, (rows) => rows.map((row) => toSubscription(row)))
    },
  })

  app.post('/auth/payment_subscription/webhook/', {
    schema: {
      summary: 'Subscription events from the payment provider, signed with the Payment-Signature header',
      body: Type.Unknown(),
      response: { 200: Detail, 400: BadRequest, 413: ErrorBody, 415: ErrorBody, 429: ErrorBody, 503: ErrorBody },
    },
    config: { access: 'anyone', resource: resource('Payment Webhook', 'Where the payment provider reports subscription events.') },
    preParsing: async (request, _reply, payload) => {
      const limit = app.config.bodyLimit
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of payload) {
        size += (chunk as Buffer).length
        if (size > limit) throw new ApiError(413, { detail: `Request body exceeds the limit of ${limit} bytes.` })
        chunks.push(chunk as Buffer)
      }
      const raw = Buffer.concat(chunks)
      rawBodies.set(request, raw)
      return Readable.from([raw])
    },
    handler: async (request) => {
      const raw = rawBodies.get(request) ?? Buffer.alloc(0)
      const header = request.headers['payment-signature']
      const secret = app.config.paymentWebhookSecret
      // A request without a signature is malformed whatever the configuration.
      const problem = secret ? signatureProblem(typeof header === 'string' ? header : undefined, raw, secret) : header ? null : 'malformed'
      if (problem) throw new ApiError(400, { detail: SIGNATURE_PROBLEMS[problem] })
      if (!secret) throw notConfigured()
      const outcome = await applyEvent(app.db, parseEvent(raw))
      return {
        detail:
          outcome === 'applied' ? 'Event applied.' : outcome === 'duplicate' ? 'Event already received.' : 'Event recorded and ignored.',
      }
    },
  })
}
