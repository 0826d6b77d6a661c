import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { type Static } from 'typebox'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { orderingTerms, column } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { toSimpleArea } from './areas.mapper.ts'
import { AREA_ORDERING, areasRepository, type AreaRow } from './areas.repository.ts'
import { Area, AreaListQuery, SimpleArea } from './areas.schemas.ts'
import { areasFromRows } from './areas.service.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

export function areaRoutes(app: App): void {
  const repository = () => areasRepository(app.db)

  const page = (request: FastifyRequest) => {
    const query = request.query as Static<typeof AreaListQuery>
    const ordering = orderingTerms(query.ordering, AREA_ORDERING, ['id'], column('areas.id'))
    return pageOfRows<AreaRow>(request, repository().filtered(query), (q) => q.selectAll('areas'), ordering)
  }

  app.get('/api/geos/', {
    schema: { summary: 'Geographic areas (countries, regions)', querystring: AreaListQuery, response: { 200: Page(Area), ...readErrors } },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Geo List', description: 'Geographic areas: countries and their regions, with location and counts.' },
    },
    handler: async (request) => {
      const result = await page(request)
      return listing(request, result, async (rows) => {
        const areas = await areasFromRows(app.db, rows, urlsFor(request))
        return rows.map((row) => areas.get(row.id)!)
      })
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
  app.get('/api/simple_geos/', {
    schema: { summary: 'Geographic areas, light form', querystring: AreaListQuery, response: { 200: Page(SimpleArea), ...readErrors } },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Simple Geo List', description: 'Geographic areas in their light form.' },
    },
    handler: async (request) => {
      const urls = urlsFor(request)
      return listing(request, await page(request), (rows) => rows.map((row) => toSimpleArea(row, urls)))
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
