import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { usersRepository } from './users.repository.ts'
import { FullUser, UserListQuery } from './users.schemas.ts'
import { fullUsersFromRows } from './users.service.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** `users` and `user_politician` are one resource under two names (spec 4.4); the clients call `users`. */
export function userRoutes(app: App): void {
  for (const name of ['user_politician', 'users']) {
    listRoute(app, `/api/${name}/`, {
      summary: 'Users in their full form, with politician information',
      querystring: UserListQuery,
      item: FullUser,
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: { name: 'User Politician List', description: 'People of the service, with their areas and politician records.' },
      },
      rows: (request, list) => usersRepository(app.db).page(request.query, request.caller, list),
      items: async (rows, request) => {
        const users = await fullUsersFromRows(viewContextOf(app, request), rows)
        return rows.map((row) => users.get(row.id)!)
      },
    })
    app.get(`/api/${name}/:id/`, {
      schema: { summary: 'One user in the full form', params: IdParams, response: { 200: FullUser, ...readErrors } },
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: { name: 'User Politician Instance', description: 'One person of the service.' },
      },
      handler: async (request) => {
        const row = await usersRepository(app.db).listed(request.params.id)
        if (!row) throw NotFound()
        const users = await fullUsersFromRows(viewContextOf(app, request), [row])
        return users.get(row.id)!
      },
    })
  }
}
