import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { idParam } from '../../http/permissions.ts'
import { choiceWriteRoutes } from './choice-writes.routes.ts'
import { Type, type Static } from 'typebox'
import { NotFound } from '../../http/errors.ts'
import { listing, pageOfRows } from '../../http/listing.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../http/ordering.ts'
import { IdFilter, ListQuery, Page, readErrors, statisticsColumns } from '../../http/schemas.ts'
import { UrlBuilder } from '../../http/urls.ts'
import type { Caller } from '../../http/authentication.ts'
import { toChoiceListItem } from '../questions/questions.mapper.ts'
import type { ChoiceRow } from '../questions/questions.repository.ts'
import { ChoiceListItem } from '../questions/questions.schemas.ts'
import { IdParams } from '../../http/route-schemas.ts'

const ChoiceListQuery = ListQuery({
  question: Type.Optional(IdFilter),
  id: Type.Optional(IdFilter),
})
type ChoiceFilters = Static<typeof ChoiceListQuery>

const CHOICE_ORDERING = orderingFieldsOf(
  ['id', 'text', 'store_number', 'created_at', 'modified_at', 'polarisation', ...statisticsColumns('direct'), ...statisticsColumns('liquid')],
  'question_choices',
)

/** Choices of the questions the caller may see. */
function filteredChoices(app: App, filters: ChoiceFilters, caller: Caller | null) {
  let query = app.db.selectFrom('question_choices').innerJoin('questions', 'questions.id', 'question_choices.question_id')
  if (!caller?.isStaff) {
    query = query.where((eb) => (caller ? eb.or([eb('questions.publish', '=', true), eb('questions.user_id', '=', caller.id)]) : eb('questions.publish', '=', true)))
  }
  if (filters.question !== undefined) query = query.where('question_choices.question_id', '=', filters.question)
  if (filters.id !== undefined) query = query.where('question_choices.id', '=', filters.id)
  return query
}

export function choiceRoutes(app: App): void {
  app.get('/api/question_choices/', {
    schema: { summary: 'Answer choices of questions', querystring: ChoiceListQuery, response: { 200: Page(ChoiceListItem), ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Question Choice List', description: 'The answer choices of multiple-choice questions, with their statistics.' } },
    handler: async (request) => {
      const filters = request.query as ChoiceFilters
      const urls = UrlBuilder.for(request)
      const ordering = orderingTerms(filters.ordering, CHOICE_ORDERING, ['question', 'store_number'], column('question_choices.id'), (name) =>
        name === 'question' ? column('question_choices.question_id') : null,
      )
      const result = await pageOfRows<ChoiceRow>(request, filteredChoices(app, filters, request.caller), (q) => q.selectAll('question_choices') as never, ordering)
      return listing(request, result, (rows) => rows.map((row) => toChoiceListItem(row, urls)))
    },
  })
  const owner = async (request: FastifyRequest) => {
    const id = idParam(request)
    if (id === null) return undefined
    return (await filteredChoices(app, { id }, request.caller).select('questions.user_id').executeTakeFirst())?.user_id
  }
  const visible = (caller: Caller | null, id: number) => filteredChoices(app, { id }, caller).select('question_choices.question_id').executeTakeFirst()
  choiceWriteRoutes(app, owner, visible)

  app.get('/api/question_choices/:id/', {
    schema: { summary: 'One answer choice', params: IdParams, response: { 200: ChoiceListItem, ...readErrors } },
    config: { access: 'anyone', resource: { name: 'Question Choice Instance', description: 'One answer choice.' } },
    handler: async (request) => {
      const [row] = await filteredChoices(app, { id: request.params.id }, request.caller).selectAll('question_choices').execute()
      if (!row) throw NotFound()
      return toChoiceListItem(row, UrlBuilder.for(request))
    },
  })
}
