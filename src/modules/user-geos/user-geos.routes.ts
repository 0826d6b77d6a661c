import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { IdFilter, ListQuery, Timestamp, Url, readErrors } from '../../http/schemas.ts'
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

  listRoute(app, '/api/user_geos/', {
    summary: 'Links between users and their areas',
    querystring: UserGeoListQuery,
    item: UserGeo,
    config: { access: 'anyone', resource: { name: 'User Geo List', description: 'Which areas (country, region) each user belongs to.' } },
    rows: (request, list) => userGeos.page(request.query, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toUserGeo(row, urls))
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
