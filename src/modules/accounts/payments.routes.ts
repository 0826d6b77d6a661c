import { Readable } from 'node:stream'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { ApiError, NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { ErrorBody, FieldErrorsBody } from '../../http/schemas.ts'
import { PageQuery, SubscribeBody, Subscription } from './payments/payments.schemas.ts'
import { configuredProvider, type PaymentProvider } from './payments/provider.ts'
import { signatureProblem } from './payments/signature.ts'
import { subscriptionsRepository, toSubscription } from './payments/subscriptions.repository.ts'
import { applyEvent, notConfigured, subscribe, unsubscribe } from './payments/subscriptions.service.ts'
import { parseEvent } from './payments/webhook.ts'
import { signedIn } from '../../http/permissions.ts'

/** Field errors, or a detail when the body is not JSON or not signed. */
const BadRequest = Type.Union([FieldErrorsBody, ErrorBody])
const errors = { 400: BadRequest, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody, 503: ErrorBody }
const Detail = Type.Object({ detail: Type.String() })

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

  const payments = (request: FastifyRequest) => ({
    db: app.db,
    provider,
    logError: (error: unknown, message: string) => request.log.error({ err: error }, message),
  })

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
      const { row, checkoutUrl } = await subscribe(payments(request), signedIn(request).id, request.body.plan)
      return reply.code(201).send(toSubscription(row, checkoutUrl))
    },
  })

  app.delete('/auth/payment_subscription/', {
    schema: { summary: 'Cancel your subscription; answers it, canceled', response: { 200: Subscription, ...errors } },
    config: { access: 'signed-in' },
    handler: async (request) => toSubscription(await unsubscribe(payments(request), signedIn(request).id)),
  })

  listRoute(app, '/auth/payment_subscription_list/', {
    summary: 'All your subscriptions, newest first',
    querystring: PageQuery,
    item: Subscription,
    config: {
      access: 'signed-in',
      resource: resource('Payment Subscription List', 'Every subscription you started, canceled ones included.'),
    },
    rows: (request, list) => subscriptionsRepository(app.db).page(signedIn(request).id, list),
    items: (rows) => rows.map((row) => toSubscription(row)),
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
