import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { readErrors } from '../../http/schemas.ts'
import { toSimplePolitician } from './politicians.mapper.ts'
import { politiciansRepository, toPolitician } from './politicians.repository.ts'
import {
  Politician,
  PoliticianListItem,
  PoliticianListQuery,
  PoliticiansOfAreaQuery,
  SimplePolitician,
  SimplePoliticianListQuery,
} from './politicians.schemas.ts'
import { politicianPage, politiciansOfAreaPage, simplePoliticiansPage } from './politicians.service.ts'

const FILTERS =
  'Filters: area (an area id), area__in, party or group, party_id or group_id, type, search (words of the name); ' +
  'an unknown area is a 400 naming the filter. Ordered by sort_name, then name, unless `ordering` says otherwise.'

const MATCH =
  "`match=<user id>` keeps the politicians of that user's areas (country, region, district, user_geos) and the areas " +
  'above them, ranked by agreement with the user: lowest difference_percent first (null below 5 common questions, ' +
  'last), then more questions in common. A politician counts with every non-skipped answer of its linked account; ' +
  "the user's private answers count only when the caller is that user. Each item then has user, difference_percent, " +
  'questions_counted, difference_distances and most_different (up to 3 questions, both answers). See docs/politicians.md.'

/** Politicians (politician, simple_politicians, simple_politicians_geos) and matching people with them. Read-only: the import writes. */
export function politicianRoutes(app: App): void {
  const repository = () => politiciansRepository(app.db)

  listRoute(app, '/api/politician/', {
    summary: 'Politicians in the form of spec 2.4; with match, ranked by agreement with a user',
    description: `${FILTERS} ${MATCH}`,
    querystring: PoliticianListQuery,
    item: PoliticianListItem,
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Politician List', description: 'Politicians and candidates, by area and party; matched with a user on request.' },
    },
    rows: (request, list) => politicianPage(app.db, request.caller, request.query, list),
    items: (rows) => rows,
  })

  app.get('/api/politician/:id/', {
    schema: {
      summary: 'One politician',
      description: 'The politician of spec 2.4, as users show it in politician_info.',
      params: IdParams,
      response: { 200: Politician, ...readErrors },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Politician Instance', description: 'One politician or candidate.' },
    },
    handler: async (request) => {
      const row = await repository().findById(request.params.id)
      if (!row) throw NotFound()
      return toPolitician(row)
    },
  })

  listRoute(app, '/api/simple_politicians/', {
    summary: 'Politicians in the light form, with their linked user',
    description: `id, name, sort_name, group, area_id, area, image, type and user (the linked account, or null). ${FILTERS}`,
    querystring: SimplePoliticianListQuery,
    item: SimplePolitician,
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Simple Politicians List', description: 'Politicians in their light form.' },
    },
    rows: (request, list) => simplePoliticiansPage(app.db, request.query, list),
    items: (rows) => rows.map(toSimplePolitician),
  })

  app.get('/api/simple_politicians/:id/', {
    schema: {
      summary: 'One politician in the light form',
      description: 'id, name, sort_name, group, area_id, area, image, type and user (the linked account, or null).',
      params: IdParams,
      response: { 200: SimplePolitician, ...readErrors },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Simple Politicians Instance', description: 'One politician in its light form.' },
    },
    handler: async (request) => {
      const row = await repository().findById(request.params.id)
      if (!row) throw NotFound()
      return toSimplePolitician(row)
    },
  })

  listRoute(app, '/api/simple_politicians_geos/', {
    summary: 'The politicians of an area and of every area above it (light form)',
    description:
      '`geo` (required) is an area id; its parents are followed up to the top. Nearest area first (ordering field ' +
      '`level`: 0 the area itself, 1 its parent, …), then sort_name and name. A geo naming no area is a 400 on geo. ' +
      FILTERS,
    querystring: PoliticiansOfAreaQuery,
    item: SimplePolitician,
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Simple Politicians Geos List', description: 'The politicians standing for an area or any area above it.' },
    },
    rows: (request, list) => politiciansOfAreaPage(app.db, request.query, list),
    items: (rows) => rows.map(toSimplePolitician),
  })
}
