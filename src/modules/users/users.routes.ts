import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { userOrdering, usersRepository, type UserRow } from './users.repository.ts'
import { FullUser, UserListQuery, type UserListQuery as UserFilters } from './users.schemas.ts'
import { fullUsersFromRows } from './users.service.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { readCompareCheck } from '../compare/compare-check.ts'
import { viewContextOf } from '../../http/view-context.ts'

/** `users` and `user_politician` are one resource under two names (spec 4.4); the clients call `users`. */
export function userRoutes(app: App): void {
  for (const name of ['user_politician', 'users']) {
    app.get(`/api/${name}/`, {
      schema: {
        summary: 'Users in their full form, with politician information',
        querystring: UserListQuery,
        response: { 200: Page(FullUser), ...readErrors },
      },
      config: {
        access: 'anyone',
        cachedForAnyone: true,
        resource: { name: 'User Politician List', description: 'People of the service, with their areas and politician records.' },
      },
      handler: async (request) => {
        const context = viewContextOf(app, request)
        const filters = request.query as UserFilters
        const compareCheck = readCompareCheck(filters.compare_check, request.caller)
        const ordering = orderingTerms(filters.ordering, userOrdering(request.caller), ['id'], column('users.id'))
        if (compareCheck) ordering.unshift(compareCheck.order)
        const filtered = usersRepository(app.db).filtered(filters, compareCheck)
        const result = await pageOfRows<UserRow>(request, filtered, (q) => q.selectAll('users'), ordering)
        return listing(request, result, async (rows) => {
          const users = await fullUsersFromRows(context, rows)
          return rows.map((row) => users.get(row.id)!)
        })
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
        const [row] = await usersRepository(app.db).filtered({ id: request.params.id }).selectAll('users').execute()
        if (!row) throw NotFound()
        const users = await fullUsersFromRows(viewContextOf(app, request), [row])
        return users.get(row.id)!
      },
    })
  }
}
