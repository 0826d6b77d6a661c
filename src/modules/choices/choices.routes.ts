import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { idParam } from '../../http/permissions.ts'
import { choiceWriteRoutes } from './choice-writes.routes.ts'
import { choicesRepository } from './choices.repository.ts'
import { Type, type Static } from 'typebox'
import { NotFound } from '../../core/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { IdFilter, ListQuery, Page, readErrors } from '../../http/schemas.ts'
import { toChoiceListItem } from '../questions/questions.mapper.ts'
import type { ChoiceRow } from '../questions/questions.repository.ts'
import { ChoiceListItem } from '../questions/questions.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { withFigures } from '../../disclosure/figures.ts'
import { loadPublishedFigures } from '../questions/published-figures.ts'
import { publishedFigureOrdering } from '../questions/published-ordering.ts'
import { urlsFor } from '../../http/urls.ts'

const ChoiceListQuery = ListQuery({
  question: Type.Optional(IdFilter),
  id: Type.Optional(IdFilter),
})
type ChoiceListFilters = Static<typeof ChoiceListQuery>

const CHOICE_ORDERING = orderingFieldsOf(['id', 'text', 'store_number', 'created_at', 'modified_at'], 'question_choices')

/** Choices with the figures everyone sees (src/disclosure/figures.ts): one statement for their questions. */
export async function publishedChoices(app: App, rows: ChoiceRow[]): Promise<ChoiceRow[]> {
  if (rows.length === 0) return rows
  const figures = await loadPublishedFigures(
    app.db,
    rows.map((row) => row.question_id),
    app.config.minCellSize,
  )
  return rows.map((row) => withFigures(row, figures.choice(row.id)))
}

export function choiceRoutes(app: App): void {
  const choices = choicesRepository(app.db)
  app.get('/api/question_choices/', {
    schema: {
      summary: 'Answer choices of questions',
      querystring: ChoiceListQuery,
      response: { 200: Page(ChoiceListItem), ...readErrors },
    },
    config: {
      access: 'anyone',
      resource: { name: 'Question Choice List', description: 'The answer choices of multiple-choice questions, with their statistics.' },
    },
    handler: async (request) => {
      const filters = request.query as ChoiceListFilters
      const urls = urlsFor(request)
      const ordering = orderingTerms(
        filters.ordering,
        { ...CHOICE_ORDERING, ...publishedFigureOrdering('choice', app.config.minCellSize) },
        ['question', 'store_number'],
        column('question_choices.id'),
        (name) => (name === 'question' ? column('question_choices.question_id') : null),
      )
      const result = await pageOfRows<ChoiceRow>(
        request,
        choices.visible(filters, request.caller),
        (q) => q.selectAll('question_choices') as never,
        ordering,
      )
      return listing(request, result, async (rows) => (await publishedChoices(app, rows)).map((row) => toChoiceListItem(row, urls)))
    },
  })
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    if (id === null) return undefined
    return choices.authorOf(id, request.caller)
  }
  choiceWriteRoutes(app, owner, (caller, id) => choices.questionOf(id, caller))

  app.get('/api/question_choices/:id/', {
    schema: { summary: 'One answer choice', params: IdParams, response: { 200: ChoiceListItem, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Question Choice Instance', description: 'One answer choice.' } },
    handler: async (request) => {
      const row = await choices.visibleOne(request.params.id, request.caller)
      if (!row) throw NotFound()
      const [published] = await publishedChoices(app, [row])
      return toChoiceListItem(published, urlsFor(request))
    },
  })
}
