import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { fieldError } from '../../core/errors.ts'
import { envelope, pageRequest } from '../../http/pagination.ts'
import { resolvePage } from '../../db/paging.ts'
import { signedIn } from '../../http/permissions.ts'
import { ListQuery, Nullable, Page, readErrors, Timestamp, Url } from '../../http/schemas.ts'
import { iso } from '../../core/time.ts'
import { UserSummary } from '../users/user-summaries.ts'
import { photoUrl } from '../users/users.mapper.ts'
import type { UserRow } from '../users/users.repository.ts'
import { ACTIVITY_KINDS, activityPage, REASONS, type ActivityFilters, type ActivityKind, type ActivityRow } from './activity.repository.ts'
import { urlsFor } from '../../http/urls.ts'

const KIND_LIST = `^(${ACTIVITY_KINDS.join('|')})(,(${ACTIVITY_KINDS.join('|')}))*$`

const ActivityQuery = ListQuery({
  kind: Type.Optional(Type.String({ maxLength: 100, pattern: KIND_LIST, description: 'comma-separated: question, answer, comment' })),
  since: Type.Optional(Type.String({ maxLength: 40, description: 'only what happened at or after this ISO 8601 time' })),
})

const Named = (name: string) => Nullable(Type.Object({ id: Type.Integer(), url: Url, [name]: Type.String() }))

const ActivityItem = Type.Object({
  kind: Type.Enum([...ACTIVITY_KINDS], { description: 'a new question, a public answer, or a comment on your question' }),
  id: Type.Integer({ description: "the question's, answer's or comment's id" }),
  created_at: Timestamp,
  reason: Type.Enum([...REASONS], { description: 'why it is in your feed' }),
  actor: UserSummary,
  question: Type.Object({ id: Type.Integer(), url: Url, question: Type.String() }),
  value: Nullable(Type.Integer({ description: 'a likert answer: 1 to 5' })),
  choice: Nullable(Type.Integer({ description: "a choice answer: the choice's id" })),
  comment: Nullable(Type.Object({ id: Type.Integer(), url: Url, text: Type.String() })),
  tag: Named('text'),
  group: Named('name'),
})

/** relevant_activity: what happened among the people, tags and groups the caller follows, and on their questions. */
export function activityRoutes(app: App): void {
  app.get('/api/relevant_activity/', {
    schema: {
      summary: 'Your activity feed',
      description:
        'Newest first: questions in tags you follow and groups you belong to, questions and public answers of people ' +
        'you follow, comments on your questions. Never your own doings, private answers or unpublished questions. ' +
        'An item reached in several ways shows once, with the first reason in the order followed_tag, group, ' +
        'followed_user, my_question.',
      querystring: ActivityQuery,
      response: { 200: Page(ActivityItem), ...readErrors },
    },
    config: {
      access: 'signed-in',
      resource: { name: 'Relevant Activity', description: 'What happened that you follow, newest first.' },
    },
    handler: async (request) => {
      const userId = signedIn(request).id
      const { kind, since } = request.query
      let sinceDate: Date | null = null
      if (since !== undefined) {
        sinceDate = new Date(since)
        if (!/^\d{4}-\d\d-\d\d/.test(since) || Number.isNaN(sinceDate.getTime()))
          throw fieldError(
            'since',
            'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].',
          )
      }
      const filters: ActivityFilters = {
        kinds: kind ? ([...new Set(kind.split(','))] as ActivityKind[]) : ACTIVITY_KINDS,
        since: sinceDate,
      }
      const requested = pageRequest(request.query as Record<string, unknown>)
      const totalOf = async () => Number((await activityPage(app.db, userId, filters, 1, 0))[0]?.total ?? 0)
      const page = requested.last ? resolvePage(requested, await totalOf()) : requested
      const rows = await activityPage(app.db, userId, filters, page.size, page.offset)
      const total = rows.length ? Number(rows[0].total) : page.offset > 0 ? await totalOf() : 0
      const urls = urlsFor(request)
      const avatar = app.config.defaultAvatarUrl
      const toItem = (row: ActivityRow) => ({
        kind: row.kind,
        id: row.id,
        created_at: iso(row.created_at),
        reason: row.reason,
        actor: {
          id: row.actor_id,
          username: row.actor_username,
          first_name: row.actor_first_name,
          last_name: row.actor_last_name,
          photo: photoUrl({ photo: row.actor_photo } as UserRow, urls, avatar),
        },
        question: { id: row.question_id, url: urls.detail('questions', row.question_id), question: row.question_text },
        value: row.value,
        choice: row.choice_id,
        comment: row.kind === 'comment' ? { id: row.id, url: urls.detail('comments', row.id), text: row.comment_text ?? '' } : null,
        tag: row.tag_id === null ? null : { id: row.tag_id, url: urls.detail('tags', row.tag_id), text: row.tag_text ?? '' },
        group: row.group_id === null ? null : { id: row.group_id, url: urls.detail('groups', row.group_id), name: row.group_name ?? '' },
      })
      return envelope(request, page, total, rows.map(toItem))
    },
  })
}
