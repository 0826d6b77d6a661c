import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { viewContextOf } from '../../http/view-context.ts'
import { collectionUsersFromRows, collectionUsersPage } from './collection-users.service.ts'
import { CollectionUser, CollectionUserQuery } from './related.schemas.ts'

export function collectionUserRoutes(app: App): void {
  listRoute(app, '/api/question_collection_users/', {
    summary: "People who answered a collection's questions",
    querystring: CollectionUserQuery,
    item: CollectionUser,
    config: {
      access: 'anyone',
      resource: {
        name: 'Question Collection User List',
        description:
          'People who answered questions of a collection (parent=<collection id>, required), with how many. Private answers count only for their author and staff.',
      },
    },
    rows: (request, list) => collectionUsersPage(app.db, request.query, request.caller, list),
    items: (rows, request) => collectionUsersFromRows(viewContextOf(app, request), rows),
  })
}
