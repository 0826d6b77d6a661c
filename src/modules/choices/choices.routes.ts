import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { listRoute } from '../../http/list-route.ts'
import { idParam } from '../../http/permissions.ts'
import { IdFilter, ListQuery, readErrors } from '../../http/schemas.ts'
import { toChoiceListItem } from '../questions/questions.mapper.ts'
import { ChoiceListItem } from '../questions/questions.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { urlsFor } from '../../http/urls.ts'
import { choiceWriteRoutes } from './choice-writes.routes.ts'
import { choicesRepository } from './choices.repository.ts'
import { publishedChoices } from './choices.service.ts'

const ChoiceListQuery = ListQuery({
  question: Type.Optional(IdFilter),
  id: Type.Optional(IdFilter),
})

export function choiceRoutes(app: App): void {
  const choices = choicesRepository(app.db)
  const k = app.config.minCellSize
  listRoute(app, '/api/question_choices/', {
    summary: 'Answer choices of questions',
    querystring: ChoiceListQuery,
    item: ChoiceListItem,
    config: {
      access: 'anyone',
      resource: { name: 'Question Choice List', description: 'The answer choices of multiple-choice questions, with their statistics.' },
    },
    rows: (request, list) => choices.page(request.query, request.caller, list, k),
    items: async (rows, request) => (await publishedChoices(app.db, rows, k)).map((row) => toChoiceListItem(row, urlsFor(request))),
  })
  choiceWriteRoutes(app, async (request) => {
    const id = idParam(request)
    return id === null ? undefined : choices.authorOf(id, request.caller)
  })

  app.get('/api/question_choices/:id/', {
    schema: { summary: 'One answer choice', params: IdParams, response: { 200: ChoiceListItem, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Question Choice Instance', description: 'One answer choice.' } },
    handler: async (request) => {
      const row = await choices.visibleOne(request.params.id, request.caller)
      if (!row) throw NotFound()
      const [published] = await publishedChoices(app.db, [row], k)
      return toChoiceListItem(published, urlsFor(request))
    },
  })
}
