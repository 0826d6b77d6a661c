import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingTerms } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { ageOrdering, CENSUS_ORDERING, censusRepository, toCensusRecord, type CensusRow } from './census.repository.ts'
import { CensusListQuery, CensusRecord, type CensusListQuery as CensusFilters } from './census.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

export function censusRoutes(app: App): void {
  const resource = {
    name: 'Census Data List',
    description: 'Population of each area by single year of age, for weighting answers (read-only).',
  }
  app.get('/api/census_data/', {
    schema: {
      summary: 'Census population by single year of age',
      querystring: CensusListQuery,
      response: { 200: Page(CensusRecord), ...readErrors },
    },
    config: { access: 'anyone', cachedForAnyone: true, resource },
    handler: async (request) => {
      const filters = request.query as CensusFilters
      const urls = urlsFor(request)
      const ordering = orderingTerms(filters.ordering, CENSUS_ORDERING, ['code', 'date'], column('census_data.id'), ageOrdering)
      const result = await pageOfRows<CensusRow>(
        request,
        censusRepository(app.db).filtered(filters),
        (q) => q.selectAll('census_data'),
        ordering,
      )
      return listing(request, result, (rows) => rows.map((row) => toCensusRecord(row, urls)))
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
      const [row] = await censusRepository(app.db).filtered({ id: request.params.id }).selectAll('census_data').execute()
      if (!row) throw NotFound()
      return toCensusRecord(row, urlsFor(request))
    },
  })
}
