import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { readErrors } from '../../http/schemas.ts'
import { advancedStats, generalStats, questionStatsFromRows } from './public-stats.service.ts'
import {
  AdvancedStats,
  AdvancedStatsQuery,
  GeneralStats,
  QuestionStats,
  QuestionStatsListQuery,
  UserCount,
} from './public-stats.schemas.ts'
import { publicStatsRepository } from './public-stats.repository.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'

/** question_stats, general_stats, advanced_stats and user_count: figures anyone may read, computed from the raw rows or the exact stored ones. */
export function publicStatsRoutes(app: App): void {
  listRoute(app, '/api/question_stats/', {
    summary: 'The figures of questions, their choices and tags, and answer activity',
    description: 'Takes every filter and ordering of the question listing.',
    querystring: QuestionStatsListQuery,
    item: QuestionStats,
    config: { access: 'anyone', resource: { name: 'Question Stats List', description: 'Statistics of each question the caller may see.' } },
    rows: (request, list) => publicStatsRepository(app.db).questionPage(request.query, request.caller, list, app.config.minCellSize),
    items: (rows, request) => questionStatsFromRows(app.db, rows, urlsFor(request), app.config.minCellSize),
  })

  app.get('/api/question_stats/:id/', {
    schema: { summary: 'The figures of one question', params: IdParams, response: { 200: QuestionStats, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Question Stats Instance', description: 'Statistics of one question.' } },
    handler: async (request) => {
      const rows = await publicStatsRepository(app.db).question(request.params.id, request.caller)
      if (rows.length === 0) throw NotFound()
      const [stats] = await questionStatsFromRows(app.db, rows, urlsFor(request), app.config.minCellSize)
      return stats
    },
  })

  app.get('/api/general_stats/', {
    schema: { summary: 'Totals of the whole service', response: { 200: GeneralStats, ...readErrors } },
    config: {
      access: 'anyone',
      resource: { name: 'General Stats', description: 'How many people, questions, answers and comments the service holds.' },
    },
    handler: async () => generalStats(app.db, app.config.minCellSize),
  })

  app.get('/api/advanced_stats/', {
    schema: {
      summary: 'Activity over time, per day, week or month',
      querystring: AdvancedStatsQuery,
      response: { 200: AdvancedStats, ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Advanced Stats', description: 'Sign-ups, answers, questions and comments per calendar period (UTC).' },
    },
    handler: async (request) => advancedStats(app.db, request.query, new Date(), app.config.minCellSize),
  })

  app.get('/api/user_count/', {
    schema: { summary: 'How many people use the service', response: { 200: UserCount, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'User Count', description: 'The number of active accounts.' } },
    handler: async () => ({ result: await publicStatsRepository(app.db).activeUserCount() }),
  })
}
