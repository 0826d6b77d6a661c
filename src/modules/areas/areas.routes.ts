import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { toSimpleArea } from './areas.mapper.ts'
import { areasRepository } from './areas.repository.ts'
import { Area, AreaListQuery, SimpleArea } from './areas.schemas.ts'
import { areasFromRows } from './areas.service.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

export function areaRoutes(app: App): void {
  const repository = () => areasRepository(app.db)

  listRoute(app, '/api/geos/', {
    summary: 'Geographic areas (countries, regions)',
    querystring: AreaListQuery,
    item: Area,
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Geo List', description: 'Geographic areas: countries and their regions, with location and counts.' },
    },
    rows: (request, list) => repository().page(request.query, list),
    items: async (rows, request) => {
      const areas = await areasFromRows(app.db, rows, urlsFor(request))
      return rows.map((row) => areas.get(row.id)!)
    },
  })
  app.get('/api/geos/:id/', {
    schema: { summary: 'One geographic area', params: IdParams, response: { 200: Area, ...readErrors } },
    config: { access: 'anyone', cachedForAnyone: true, resource: { name: 'Geo Instance', description: 'One geographic area.' } },
    handler: async (request) => {
      const row = await repository().findById(request.params.id)
      if (!row) throw NotFound()
      const areas = await areasFromRows(app.db, [row], urlsFor(request))
      return areas.get(row.id)!
    },
  })
  listRoute(app, '/api/simple_geos/', {
    summary: 'Geographic areas, light form',
    querystring: AreaListQuery,
    item: SimpleArea,
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Simple Geo List', description: 'Geographic areas in their light form.' },
    },
    rows: (request, list) => repository().page(request.query, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toSimpleArea(row, urls))
    },
  })
  app.get('/api/simple_geos/:id/', {
    schema: { summary: 'One geographic area, light form', params: IdParams, response: { 200: SimpleArea, ...readErrors } },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Simple Geo Instance', description: 'One geographic area in its light form.' },
    },
    handler: async (request) => {
      const row = await repository().findById(request.params.id)
      if (!row) throw NotFound()
      return toSimpleArea(row, urlsFor(request))
    },
  })
}
