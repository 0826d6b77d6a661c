import type { App } from '../../http/app-type.ts'
import { listRoute } from '../../http/list-route.ts'
import { toHistoryItem, toHistorySimpleItem } from './history.mapper.ts'
import { historyRepository } from './history.repository.ts'
import { HistoryItem, HistoryListQuery, HistorySimpleItem } from './votes.schemas.ts'
import { signedIn } from '../../http/permissions.ts'
import { urlsFor } from '../../http/urls.ts'

/**
 * The caller's answering history, newest first: current answers and the ones they replaced or withdrew,
 * likert and multiple-choice alike. `question_history` adds each question's text (two batch loads per
 * page); `question_history_simple` is the light form.
 */
export function historyRoutes(app: App): void {
  listRoute(app, '/api/question_history_simple/', {
    summary: 'Your answers, current and replaced, newest first (light form)',
    querystring: HistoryListQuery,
    item: HistorySimpleItem,
    config: { access: 'signed-in', resource: { name: 'Question History Simple', description: 'Your answering history in a light form.' } },
    rows: (request, list) => historyRepository(app.db).page(request.query, signedIn(request).id, list),
    items: (rows) => rows.map(toHistorySimpleItem),
  })

  listRoute(app, '/api/question_history/', {
    summary: 'Your answers, current and replaced, newest first, with their questions',
    querystring: HistoryListQuery,
    item: HistoryItem,
    config: {
      access: 'signed-in',
      resource: { name: 'Question History', description: 'Your answering history with the questions and choices answered.' },
    },
    rows: (request, list) => historyRepository(app.db).page(request.query, signedIn(request).id, list),
    items: async (rows, request) => {
      const urls = urlsFor(request)
      const repository = historyRepository(app.db)
      const [questions, choiceTexts] = await Promise.all([
        repository.questions(rows.map((row) => row.question_id)),
        repository.choiceTexts(rows.flatMap((row) => (row.choice_id === null ? [] : [row.choice_id]))),
      ])
      const byId = new Map(questions.map((question) => [question.id, question]))
      return rows.map((row) =>
        toHistoryItem(row, byId.get(row.question_id)!, row.choice_id === null ? null : (choiceTexts.get(row.choice_id) ?? null), urls),
      )
    },
  })
}
