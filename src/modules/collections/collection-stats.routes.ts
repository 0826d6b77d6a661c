import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { percentage } from './collections.mapper.ts'
import { collectionsRepository, type CollectionRow } from './collections.repository.ts'
import { collectionFigures, type CollectionFigures } from './collection-stats.repository.ts'
import { releaseGroup, releaseSiblings, shownCount } from '../../disclosure/release.ts'
import { CollectionStats, CollectionStatsQuery } from './related.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

/**
 * The figures of one collection as the disclosure rules let them out (docs/collections.md): the group is its
 * answerers; their private answers count once k of them have one there; nothing is shown below k answerers; the
 * people who answered everything, and the others, are siblings under them (secondary suppression).
 */
function releasedFigures(figures: CollectionFigures | undefined, questionCount: number, k: number) {
  if (!figures) return {}
  const everyone = { public: figures.answerers - figures.private_people, private: figures.private_people }
  const release = releaseGroup(everyone, k)
  if (!release.published) return {}
  const complete = {
    public: figures.complete_count - figures.complete_private_people,
    private: figures.complete_private_people,
  }
  const others = { public: everyone.public - complete.public, private: everyone.private - complete.private }
  const [completeRelease] = releaseSiblings([complete, others], k, { count: everyone, release })
  const answerers = release.withPrivate ? figures.answerers : figures.public_answerers
  const answers = release.withPrivate ? figures.answers : figures.public_answers
  return {
    answerers,
    answers,
    ...(completeRelease.published ? { complete_count: shownCount(complete, completeRelease) } : {}),
    completion: percentage(answers, answerers * questionCount),
  }
}

const STATS_ORDERING = orderingFieldsOf(['id', 'question_count', 'item_count', 'created_at'], 'question_collections')

export function collectionStatsRoutes(app: App): void {
  const render = async (request: FastifyRequest, rows: CollectionRow[]): Promise<CollectionStats[]> => {
    const figures = await collectionFigures(
      app.db,
      rows.map((row) => row.id),
    )
    const urls = urlsFor(request)
    return rows.map((row) => ({
      id: row.id,
      url: urls.detail('collection_stats', row.id),
      collection: row.id,
      collection_url: urls.detail('question_collections', row.id),
      question_count: row.question_count,
      item_count: row.item_count,
      ...releasedFigures(figures.get(row.id), row.question_count, app.config.minCellSize),
    }))
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
          'Per collection (filter collection=<id>): question and item counts, how many people answered, their answers and how ' +
          'complete; private answers count once MIN_CELL_SIZE people have one there, and the figures of fewer than MIN_CELL_SIZE ' +
          'people are left out.',
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
