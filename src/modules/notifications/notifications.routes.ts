import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { envelope, listRequestOf } from '../../http/pagination.ts'
import { idParam, signedIn } from '../../http/permissions.ts'
import { EmptyBody, IdParams, NoContent, writeErrors } from '../../http/route-schemas.ts'
import { readErrors } from '../../http/schemas.ts'
import { effectiveSettings, type NotificationKind, type StoredSettings } from '../../engines/notifications/notification-kinds.ts'
import { toNotifications } from './notifications.mapper.ts'
import { changeNotificationSettings } from './notifications.service.ts'
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
      const result = await repository().page(userId, filters, listRequestOf(request))
      const results = await toNotifications(context(request), result.rows)
      return { ...envelope(request, result.page, result.count, results), unread_count: result.unread }
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
        const stored = await changeNotificationSettings(app.db, signedIn(request).id, request.body)
        return settingsOf(request, stored)
      },
    })
  }
}
