import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { IdFilter, ListQuery, Page, Timestamp, Url, readErrors } from '../../http/schemas.ts'
import { iso } from '../../core/time.ts'
import { UrlBuilder } from '../../core/urls.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { type UserGeoRow, userGeosRepository } from './user-geos.repository.ts'
import { urlsFor } from '../../http/urls.ts'

/** A link between a user and an area they belong to: what a user's `locations` point at. */
const UserGeo = Type.Object({
  id: Type.Integer(),
  url: Url,
  user: Type.Integer(),
  user_url: Url,
  geo: Type.Integer(),
  geo_url: Url,
  created_at: Timestamp,
})

const UserGeoListQuery = ListQuery({
  user: Type.Optional(IdFilter),
  geo: Type.Optional(IdFilter),
})

const ORDERING = orderingFieldsOf(['id', 'created_at'], 'user_geos')

export function userGeoRoutes(app: App): void {
  const userGeos = userGeosRepository(app.db)
  const toUserGeo = (row: UserGeoRow, urls: UrlBuilder) => ({
    id: row.id,
    url: urls.detail('user_geos', row.id),
    user: row.user_id,
    user_url: urls.detail('users', row.user_id),
    geo: row.area_id,
    geo_url: urls.detail('geos', row.area_id),
    created_at: iso(row.created_at),
  })

  app.get('/api/user_geos/', {
    schema: {
      summary: 'Links between users and their areas',
      querystring: UserGeoListQuery,
      response: { 200: Page(UserGeo), ...readErrors },
    },
    config: { access: 'anyone', resource: { name: 'User Geo List', description: 'Which areas (country, region) each user belongs to.' } },
    handler: async (request) => {
      const query = request.query
      const urls = urlsFor(request)
      const ordering = orderingTerms(query.ordering, ORDERING, ['id'], column('user_geos.id'))
      const result = await pageOfRows<UserGeoRow>(request, userGeos.filtered(query), (q) => q.selectAll('user_geos'), ordering)
      return listing(request, result, (rows) => rows.map((row) => toUserGeo(row, urls)))
    },
  })
  app.get('/api/user_geos/:id/', {
    schema: { summary: 'One user-area link', params: IdParams, response: { 200: UserGeo, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'User Geo Instance', description: 'One link between a user and an area.' } },
    handler: async (request) => {
      const row = await userGeos.find(request.params.id)
      if (!row) throw NotFound()
      return toUserGeo(row, urlsFor(request))
    },
  })
}
