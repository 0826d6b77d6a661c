import type { App } from '../../http/app-type.ts'
import { fieldError } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { signedIn } from '../../http/permissions.ts'
import { toActivityItem } from './activity.mapper.ts'
import { ACTIVITY_KINDS, activityPage, type ActivityFilters, type ActivityKind } from './activity.repository.ts'
import { ActivityItem, ActivityQuery } from './activity.schemas.ts'
import { urlsFor } from '../../http/urls.ts'

/** `since` as DRF reads a date-time: null when absent, 400 when it is not one. */
function sinceOf(since: string | undefined): Date | null {
  if (since === undefined) return null
  const date = new Date(since)
  if (!/^\d{4}-\d\d-\d\d/.test(since) || Number.isNaN(date.getTime()))
    throw fieldError(
      'since',
      'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
    )
  return date
}

/** relevant_activity: what happened among the people, tags and groups the caller follows, and on their questions. */
export function activityRoutes(app: App): void {
  listRoute(app, '/api/relevant_activity/', {
    summary: 'Your activity feed',
    description:
      'Newest first: questions in tags you follow and groups you belong to, questions and public answers of people ' +
      'you follow, comments on your questions. Never your own doings, private answers or unpublished questions. ' +
      'An item reached in several ways shows once, with the first reason in the order followed_tag, group, ' +
      'followed_user, my_question.',
    querystring: ActivityQuery,
    item: ActivityItem,
    config: {
      access: 'signed-in',
      resource: { name: 'Relevant Activity', description: 'What happened that you follow, newest first.' },
    },
    rows: (request, list) => {
      const { kind, since } = request.query
      const filters: ActivityFilters = {
        kinds: kind ? ([...new Set(kind.split(','))] as ActivityKind[]) : ACTIVITY_KINDS,
        since: sinceOf(since),
      }
      return activityPage(app.db, signedIn(request).id, filters, list)
    },
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toActivityItem(row, urls, app.config.defaultAvatarUrl))
    },
  })
}
