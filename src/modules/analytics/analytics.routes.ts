import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { writeErrors } from '../../http/route-schemas.ts'
import { readErrors } from '../../http/schemas.ts'
import { iso } from '../../core/time.ts'
import { normalizeIP } from '@fastify/rate-limit'
import { dayRange, eventPayload } from './analytics.payload.ts'
import { analyticsRepository, type AnalyticsEventRow } from './analytics.repository.ts'
import { DailyCount, DailyCountsQuery, EVENT_BODIES, EVENT_KINDS, StoredEvent, type EventKind } from './analytics.schemas.ts'
import { Type } from 'typebox'

const DESCRIPTIONS: Record<EventKind, string> = {
  url_share: 'Someone shared a link to a question, a collection or a comparison.',
  chatbot_join: 'Someone started a conversation with the chat bot.',
  chatbot_message: 'Someone sent the chat bot a message (its length only, never its text).',
  clicks: 'Someone clicked a link or button the app tracks.',
}

/**
 * Each kind takes at most a fifth of the anonymous allowance a minute from one user or address: events are
 * cheap to send and a loop in a client should not fill the table (the general allowances still apply).
 */
const EVENTS_SHARE_OF_ANONYMOUS_LIMIT = 5

function toEvent(row: AnalyticsEventRow) {
  return {
    id: row.id,
    kind: row.kind,
    user: row.user_id,
    payload: row.payload as Record<string, string | number | null>,
    created_at: iso(row.created_at),
  }
}

/** Analytics events the clients report (analytics_event/*). */
export function analyticsRoutes(app: App): void {
  const repository = () => analyticsRepository(app.db)
  const perMinute = Math.max(1, Math.floor(app.config.rateLimits.anonymous / EVENTS_SHARE_OF_ANONYMOUS_LIMIT))
  const reporter = (request: FastifyRequest) =>
    request.caller ? `user:${request.caller.id}` : `ip:${normalizeIP(request.ip ?? 'unknown')}`

  for (const kind of EVENT_KINDS) {
    const url = `/api/analytics_event/${kind}/`
    const name = kind.replace(/_/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase())

    app.get(url, {
      schema: {
        summary: `Daily counts of ${kind} events (staff)`,
        description: `Events per day (UTC), oldest first; days without any are left out. \`from\` and \`to\` (YYYY-MM-DD) bound the days, both included.`,
        querystring: DailyCountsQuery,
        response: { 200: Type.Array(DailyCount), ...readErrors },
      },
      config: {
        access: 'staff',
        resource: {
          name: `Analytics Event ${name}`,
          description: `${DESCRIPTIONS[kind]} Anyone reports one with POST; staff read daily counts.`,
        },
      },
      handler: async (request) => {
        const range = dayRange(request.query.from, request.query.to)
        return repository().dailyCounts(kind, range.start, range.end)
      },
    })

    app.post(url, {
      schema: {
        summary: `Report a ${kind} event`,
        description: `${DESCRIPTIONS[kind]} Anonymous or signed in (then the event names the user). Answers 201 with the stored event; unknown fields are ignored.`,
        body: EVENT_BODIES[kind],
        response: { 201: StoredEvent(kind), ...writeErrors },
      },
      config: {
        access: 'anyone',
        rateLimit: { max: perMinute, timeWindow: 60_000, keyGenerator: reporter },
      },
      handler: async (request, reply) => {
        const payload = eventPayload(kind, request.body as Record<string, unknown>)
        const row = await repository().insert(kind, request.caller?.id ?? null, payload)
        return reply.code(201).send(toEvent(row) as never)
      },
    })
  }
}
