import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { censusRepository, toCensusRecord } from './census.repository.ts'
import { CensusListQuery, CensusRecord } from './census.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

export function censusRoutes(app: App): void {
  const resource = {
    name: 'Census Data List',
    description: 'Population of each area by single year of age, for weighting answers (read-only).',
  }
  listRoute(app, '/api/census_data/', {
    summary: 'Census population by single year of age',
    querystring: CensusListQuery,
    item: CensusRecord,
    config: { access: 'anyone', cachedForAnyone: true, resource },
    rows: (request, list) => censusRepository(app.db).page(request.query, list),
    items: (rows, request) => {
      const urls = urlsFor(request)
      return rows.map((row) => toCensusRecord(row, urls))
    },
  })
  app.get('/api/census_data/:id/', {
    schema: { summary: 'One census record', params: IdParams, response: { 200: CensusRecord, ...readErrors } },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Census Data Instance', description: "One area's population by single year of age." },
    },
    handler: async (request) => {
      const row = await censusRepository(app.db).find(request.params.id)
      if (!row) throw NotFound()
      return toCensusRecord(row, urlsFor(request))
    },
  })
}
