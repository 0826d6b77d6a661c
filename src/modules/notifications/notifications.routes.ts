import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound, fieldError } from '../../core/errors.ts'
import { envelope, pageRequest } from '../../http/pagination.ts'
import { resolvePage } from '../../db/paging.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { EmptyBody, IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { readErrors } from '../../http/schemas.ts'
import { effectiveSettings, NOTIFICATION_KINDS, type NotificationKind, type StoredSettings } from './notification-kinds.ts'
import { toNotifications } from './notifications.mapper.ts'
import { notificationsRepository, type NotificationFilters, type NotificationRow } from './notifications.repository.ts'
import {
  MarkedRead,
  Notification,
  NotificationListQuery,
  NotificationPage,
  NotificationSettings,
  NotificationSettingsUpdate,
  NotificationUpdate,
} from './notifications.schemas.ts'
import { urlsFor } from '../../http/urls.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** The caller's notifications, and their settings: which kinds reach them by which channel. */
export function notificationRoutes(app: App): void {
  const repository = () => notificationsRepository(app.db)
  const context = (request: FastifyRequest) => viewContextOf(app, request)
  const one = async (request: FastifyRequest, row: NotificationRow) => (await toNotifications(context(request), [row]))[0]
  const recipient = async (request: FastifyRequest) => {
    const id = idParam(request)
    return id === null ? undefined : repository().owner(id)
  }

  app.get('/api/notifications/', {
    schema: {
      summary: 'Your notifications, newest first',
      description:
        'What happened that concerns you: comments on your questions and replies to your comments, friend requests ' +
        'and acceptances, questions asked by people you follow, answers your delegates gave on your behalf (or withdrew), ' +
        'questions added to collections you answered, group invitations and decisions on your join requests. ' +
        '`unread_count` counts all your unread ones, whatever the filters. Filter with `unread=true|false` and `kind`.',
      querystring: NotificationListQuery,
      response: { 200: NotificationPage, ...readErrors },
    },
    config: {
      access: 'signed-in',
      resource: {
        name: 'Notification List',
        description: 'Your notifications. Mark one read with PATCH {read: true}, all with POST mark_all_read/.',
      },
    },
    handler: async (request) => {
      const userId = signedIn(request).id
      const query = request.query
      const filters: NotificationFilters = {
        unread: query.unread === undefined ? undefined : query.unread === 'true' || query.unread === '1',
        kinds: query.kind ? (query.kind.split(',') as NotificationKind[]) : undefined,
      }
      const requested = pageRequest(query as Record<string, unknown>)
      let counts = requested.last ? await repository().counts(userId, filters) : null
      const page = counts ? resolvePage(requested, counts.total) : requested
      const rows = await repository().page(userId, filters, page.size, page.offset)
      if (rows.length > 0) counts = { total: Number(rows[0].total), unread: Number(rows[0].unread) }
      counts ??= await repository().counts(userId, filters)
      const results = await toNotifications(context(request), rows)
      return { ...envelope(request, page, counts.total, results), unread_count: counts.unread }
    },
  })

  app.post('/api/notifications/mark_all_read/', {
    schema: {
      summary: 'Mark all your notifications read',
      body: EmptyBody,
      response: { 200: MarkedRead, ...writeErrors },
    },
    config: { access: 'signed-in' },
    handler: async (request) => ({ marked: await repository().markAllRead(signedIn(request).id) }),
  })

  app.get('/api/notifications/:id/', {
    schema: { summary: 'One of your notifications', params: IdParams, response: { 200: Notification, ...readErrors } },
    config: {
      access: 'owner',
      owner: recipient,
      resource: { name: 'Notification Instance', description: 'One notification: PATCH {read} to mark it, DELETE to dismiss it.' },
    },
    handler: async (request) => {
      const row = await repository().find(request.params.id)
      if (!row) throw NotFound()
      return one(request, row)
    },
  })

  app.patch('/api/notifications/:id/', {
    schema: {
      summary: 'Mark a notification read or unread',
      params: IdParams,
      body: NotificationUpdate,
      response: { 200: Notification, ...writeErrors },
    },
    config: { access: 'owner', owner: recipient },
    handler: async (request) => {
      const row = await repository().setRead(request.params.id, request.body.read)
      if (!row) throw NotFound()
      return one(request, row)
    },
  })

  app.delete('/api/notifications/:id/', {
    schema: { summary: 'Dismiss a notification', params: IdParams, response: { 204: NoContent, ...writeErrors } },
    config: { access: 'owner', owner: recipient },
    handler: async (request, reply) => {
      await repository().remove(request.params.id)
      return reply.code(204).send(null)
    },
  })

  const settingsOf = (request: FastifyRequest, stored: StoredSettings | null) => ({
    url: urlsFor(request).path('/api/notification_settings/'),
    ...effectiveSettings(stored),
  })
  const settingsResource = {
    name: 'Notification Settings',
    description:
      'For each kind of notification, whether it is listed in the app, put in the e-mail digest and pushed to your ' +
      'phones; and how often the digest comes (daily, weekly or never). Change any part with PATCH (or PUT).',
  }

  app.get('/api/notification_settings/', {
    schema: { summary: 'Your notification settings', response: { 200: NotificationSettings, ...readErrors } },
    config: { access: 'signed-in', resource: settingsResource },
    handler: async (request) => settingsOf(request, await repository().storedSettings(signedIn(request).id)),
  })

  for (const method of ['patch', 'put'] as const) {
    app[method]('/api/notification_settings/', {
      schema: {
        summary: 'Change your notification settings',
        description: 'Only what is sent changes: `{"digest": "daily"}`, `{"kinds": {"friend_request": {"push": false}}}`.',
        body: NotificationSettingsUpdate,
        response: { 200: NotificationSettings, ...writeErrors },
      },
      config: { access: 'signed-in' },
      handler: async (request) => {
        const change = request.body
        const unknown = Object.keys(change.kinds ?? {}).filter((kind) => !NOTIFICATION_KINDS.includes(kind as NotificationKind))
        if (unknown.length)
          throw fieldError('kinds', `Not a kind of notification: ${unknown.join(', ')}. The kinds are ${NOTIFICATION_KINDS.join(', ')}.`)
        const stored = await repository().changeSettings(signedIn(request).id, (current) => {
          const kinds = { ...current?.kinds }
          for (const [kind, channels] of Object.entries(change.kinds ?? {}) as [NotificationKind, Record<string, boolean>][])
            kinds[kind] = { ...kinds[kind], ...channels }
          return { ...current, ...(change.digest ? { digest: change.digest } : {}), kinds }
        })
        return settingsOf(request, stored)
      },
    })
  }
}
