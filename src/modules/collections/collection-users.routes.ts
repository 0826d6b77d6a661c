import type { App } from '../../http/app-type.ts'
import { fieldError, invalidPk } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { iso } from '../../core/time.ts'
import { percentage } from './collections.mapper.ts'
import { collectionsRepository } from './collections.repository.ts'
import { COLLECTION_USER_ORDERING, collectionUsers, type CollectionUserRow } from './collection-users.repository.ts'
import { CollectionUser, CollectionUserQuery } from './related.schemas.ts'
import { reducedUsers } from '../users/users.service.ts'
import { urlsFor } from '../../http/urls.ts'
import { viewContextOf } from '../../http/view-context.ts'

export function collectionUserRoutes(app: App): void {
  app.get('/api/question_collection_users/', {
    schema: {
      summary: "People who answered a collection's questions",
      querystring: CollectionUserQuery,
      response: { 200: Page(CollectionUser), ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: {
        name: 'Question Collection User List',
        description:
          'People who answered questions of a collection (parent=<collection id>, required), with how many. Private answers count only for their author and staff.',
      },
    },
    handler: async (request) => {
      const filters = request.query
      if (filters.parent === undefined) throw fieldError('parent', 'This field is required.')
      const collection = await collectionsRepository(app.db).find(filters.parent)
      if (!collection) throw fieldError('parent', invalidPk(filters.parent))
      const ordering = orderingTerms(
        filters.ordering,
        COLLECTION_USER_ORDERING,
        ['-answered_count', '-last_answered_at'],
        column('answerers.user_id'),
      )
      const result = await pageOfRows<CollectionUserRow>(
        request,
        collectionUsers(app.db, collection.id, request.caller, filters.user),
        (q) => q.selectAll(),
        ordering,
      )
      return listing(request, result, async (rows) => {
        const users = await reducedUsers(
          viewContextOf(app, request),
          rows.map((row) => row.user_id),
        )
        const urls = urlsFor(request)
        return rows.map((row) => ({
          id: row.user_id,
          user_url: urls.detail('users', row.user_id),
          user: users.get(row.user_id)!,
          parent: collection.id,
          answered_count: row.answered_count,
          answered: percentage(row.answered_count, collection.question_count),
          last_answered_at: iso(row.last_answered_at),
        }))
      })
    },
  })
}
