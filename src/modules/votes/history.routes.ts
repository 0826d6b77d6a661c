import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { orderingTerms } from '../../db/ordering.ts'
import { Page, readErrors } from '../../http/schemas.ts'
import { toHistoryItem, toHistorySimpleItem } from './history.mapper.ts'
import { HISTORY_ORDERING, HISTORY_TIE_BREAK, historyRepository, type HistoryRow } from './history.repository.ts'
import { HistoryItem, HistoryListQuery, HistorySimpleItem, type HistoryListQuery as HistoryFilters } from './votes.schemas.ts'
import { signedIn } from '../../http/permissions.ts'
import { urlsFor } from '../../http/urls.ts'

/**
 * The caller's answering history, newest first: current answers and the ones they replaced or withdrew,
 * likert and multiple-choice alike. `question_history` adds each question's text (two batch loads per
 * page); `question_history_simple` is the light form.
 */
export function historyRoutes(app: App): void {
  const page = (request: FastifyRequest) => {
    const filters = request.query as HistoryFilters
    const ordering = orderingTerms(filters.ordering, HISTORY_ORDERING, ['-answered_at'], HISTORY_TIE_BREAK)
    return { filtered: historyRepository(app.db).answersOf(signedIn(request).id, filters.question), ordering }
  }

  app.get('/api/question_history_simple/', {
    schema: {
      summary: 'Your answers, current and replaced, newest first (light form)',
      querystring: HistoryListQuery,
      response: { 200: Page(HistorySimpleItem), ...readErrors },
    },
    config: { access: 'signed-in', resource: { name: 'Question History Simple', description: 'Your answering history in a light form.' } },
    handler: async (request) => {
      const { filtered, ordering } = page(request)
      const result = await pageOfRows<HistoryRow>(request, filtered, (q) => q.selectAll('h'), ordering)
      return listing(request, result, (rows) => rows.map(toHistorySimpleItem))
    },
  })

  app.get('/api/question_history/', {
    schema: {
      summary: 'Your answers, current and replaced, newest first, with their questions',
      querystring: HistoryListQuery,
      response: { 200: Page(HistoryItem), ...readErrors },
    },
    config: {
      access: 'signed-in',
      resource: { name: 'Question History', description: 'Your answering history with the questions and choices answered.' },
    },
    handler: async (request) => {
      const { filtered, ordering } = page(request)
      const result = await pageOfRows<HistoryRow>(request, filtered, (q) => q.selectAll('h'), ordering)
      const urls = urlsFor(request)
      return listing(request, result, async (rows) => {
        const repository = historyRepository(app.db)
        const [questions, choiceTexts] = await Promise.all([
          repository.questions(rows.map((row) => row.question_id)),
          repository.choiceTexts(rows.flatMap((row) => (row.choice_id === null ? [] : [row.choice_id]))),
        ])
        const byId = new Map(questions.map((question) => [question.id, question]))
        return rows.map((row) =>
          toHistoryItem(row, byId.get(row.question_id)!, row.choice_id === null ? null : (choiceTexts.get(row.choice_id) ?? null), urls),
        )
      })
    },
  })
}
