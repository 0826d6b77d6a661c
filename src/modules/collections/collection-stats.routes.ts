import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../http/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../http/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { UrlBuilder } from '../../http/urls.ts'
import { percentage } from './collections.mapper.ts'
import { collectionsRepository, type CollectionRow } from './collections.repository.ts'
import { collectionFigures } from './collection-stats.repository.ts'
import { CollectionStats, CollectionStatsQuery } from './related.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'

const STATS_ORDERING = orderingFieldsOf(['id', 'question_count', 'item_count', 'created_at'], 'question_collections')

export function collectionStatsRoutes(app: App): void {
  const render = async (request: FastifyRequest, rows: CollectionRow[]): Promise<CollectionStats[]> => {
    const figures = await collectionFigures(
      app.db,
      rows.map((row) => row.id),
    )
    const urls = UrlBuilder.for(request)
    return rows.map((row) => {
      const { answerers = 0, answers = 0, complete_count = 0 } = figures.get(row.id) ?? {}
      return {
        id: row.id,
        url: urls.detail('collection_stats', row.id),
        collection: row.id,
        collection_url: urls.detail('question_collections', row.id),
        question_count: row.question_count,
        item_count: row.item_count,
        answerers,
        answers,
        complete_count,
        completion: percentage(answers, answerers * row.question_count),
      }
    })
  }

  app.get('/api/collection_stats/', {
    schema: {
      summary: 'Figures of each collection',
      querystring: CollectionStatsQuery,
      response: { 200: Page(CollectionStats), ...readErrors },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: {
        name: 'Collection Stats List',
        description:
          'Per collection (filter collection=<id>): question and item counts, how many people answered, their answers and how complete.',
      },
    },
    handler: async (request) => {
      const filters = request.query
      const ordering = orderingTerms(filters.ordering, STATS_ORDERING, ['id'], column('question_collections.id'))
      const query = collectionsRepository(app.db).filtered({ id: filters.collection ?? filters.id })
      const result = await pageOfRows<CollectionRow>(request, query, (q) => q.selectAll('question_collections'), ordering)
      return listing(request, result, (rows) => render(request, rows))
    },
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
      const row = await collectionsRepository(app.db).find(request.params.id)
      if (!row) throw NotFound()
      return (await render(request, [row]))[0]
    },
  })
}
