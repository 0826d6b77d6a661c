import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { viewContextOf } from '../../http/view-context.ts'
import { collectionsRepository } from './collections.repository.ts'
import { collectionStatsFromRows } from './collection-stats.service.ts'
import { CollectionStats, CollectionStatsQuery } from './related.schemas.ts'

export function collectionStatsRoutes(app: App): void {
  listRoute(app, '/api/collection_stats/', {
    summary: 'Figures of each collection',
    querystring: CollectionStatsQuery,
    item: CollectionStats,
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: {
        name: 'Collection Stats List',
        description:
          'Per collection (filter collection=<id>): question and item counts, how many people answered, their answers and how ' +
          'complete; private answers count once MIN_CELL_SIZE people have one there, and the figures of fewer than MIN_CELL_SIZE ' +
          'people are left out.',
      },
    },
    rows: (request, list) => collectionsRepository(app.db).statsPage(request.query.collection ?? request.query.id, request.caller, list),
    items: (rows, request) => collectionStatsFromRows(viewContextOf(app, request), rows),
  })

  app.get('/api/collection_stats/:id/', {
    schema: {
      summary: 'Figures of one collection (by collection id)',
      params: IdParams,
      response: { 200: CollectionStats, ...readErrors },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Collection Stats Instance', description: 'The figures of one collection.' },
    },
    handler: async (request) => {
      const row = await collectionsRepository(app.db).findFor(request.params.id, request.caller)
      if (!row) throw NotFound()
      return (await collectionStatsFromRows(viewContextOf(app, request), [row]))[0]
    },
  })
}
