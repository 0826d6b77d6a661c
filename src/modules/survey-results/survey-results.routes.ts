import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { NotFound } from '../../core/errors.ts'
import { envelope, listRequestOf } from '../../http/pagination.ts'
import { readErrors } from '../../http/schemas.ts'
import { weightingOptions } from '../weighting/weighting.service.ts'
import { CSV_TYPE, surveyResultsCsv } from './survey-results.mapper.ts'
import { surveyResultsRepository } from './survey-results.repository.ts'
import { AllResults, AllResultsQuery, CollectionResults, CollectionResultsQuery, withMediaTypes } from './survey-results.schemas.ts'
import { surveyResults } from './survey-results.service.ts'
import { urlsFor } from '../../http/urls.ts'

const CsvText = Type.String({
  description:
    'RFC 4180 CSV with a header line, one row per (question, level or choice); the rows the JSON leaves out are blank and suppressed',
})

const figures =
  'Per question: `sample_size` and `skipped`; for a likert question `direct` (mean and shares of levels 1..5 with 95 % ' +
  'margins) and `weighted` (the census-weighted result of /api/question_weighted_demographics/{id}/age/ `overall`: ' +
  'method, partial, trimmed, excluded, effective sample size, design effect, weighted mean and shares with margins); ' +
  'for a multiple-choice question `choices` (picks and share of each choice, unweighted) and `direct`, `weighted` null. ' +
  'Private answers count once a question holds MIN_CELL_SIZE of them; a level or choice of fewer than MIN_CELL_SIZE answers is left ' +
  'out, with the smallest others where the total would give it away. `?format=csv` gives the same figures as an open-data table, ' +
  'the withheld rows blank and suppressed. See docs/results.md.'

/**
 * Survey results: every question of a collection (survey_results) or every question the caller may see
 * (survey_results_all), direct and census-weighted, in JSON or as an open-data CSV. Anyone may read them
 * (aggregates only). A constant number of statements per request, whatever the number of questions.
 */
export function surveyResultsRoutes(app: App): void {
  const options = () => weightingOptions(app.config)

  app.get('/api/survey_results/', {
    schema: {
      summary: "Direct and census-weighted results of a collection's questions",
      description:
        `The questions of the collection ?collection=<id> the caller may see, in the collection's order; not paginated. ${figures} ` +
        'Five statements: the collection, its questions, their answers, the census of their regions, their choices.',
      querystring: CollectionResultsQuery,
      response: {
        200: withMediaTypes('The results, in JSON or (with `?format=csv`) CSV.', CollectionResults, { 'text/csv': CsvText }),
        ...readErrors,
      },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      formats: ['csv'],
      resource: { name: 'Survey Results', description: "The results of a collection's questions, direct and weighted to the census." },
    },
    handler: async (request, reply) => {
      const query = request.query as CollectionResultsQuery
      const repository = surveyResultsRepository(app.db)
      const collection = await repository.collection(query.collection)
      if (!collection) throw NotFound()
      const questions = await repository.collectionQuestions(request.caller, collection.id)
      const urls = urlsFor(request)
      const outcomes = await surveyResults(app.db, questions, options(), urls)
      if (query.format === 'csv') return reply.type(CSV_TYPE).send(surveyResultsCsv(outcomes))
      return {
        collection: { id: collection.id, name: collection.name, url: urls.detail('question_collections', collection.id) },
        count: outcomes.length,
        results: outcomes.map((outcome) => outcome.result),
      }
    },
  })

  app.get('/api/survey_results_all/', {
    schema: {
      summary: 'Direct and census-weighted results of every question',
      description:
        `Every question the caller may see (published, their own, or every one for staff), paginated; most answered first ` +
        '(current answers, likert and choice, skips included), ties by larger id first. `ordering`: `answer_count`, `id`, `created_at` ' +
        `(a leading - reverses). ${figures} The CSV holds the rows of the page asked for.`,
      querystring: AllResultsQuery,
      response: {
        200: withMediaTypes('A page of results, in JSON or (with `?format=csv`) CSV.', AllResults, { 'text/csv': CsvText }),
        ...readErrors,
      },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      formats: ['csv'],
      resource: { name: 'Survey Results All', description: 'The results of every question, direct and weighted to the census.' },
    },
    handler: async (request, reply) => {
      const query = request.query as AllResultsQuery
      const page = await surveyResultsRepository(app.db).page(request.caller, app.config.minCellSize, listRequestOf(request))
      const outcomes = await surveyResults(app.db, page.rows, options(), urlsFor(request))
      if (query.format === 'csv') return reply.type(CSV_TYPE).send(surveyResultsCsv(outcomes))
      return envelope(
        request,
        page.page,
        page.count,
        outcomes.map((outcome) => outcome.result),
      )
    },
  })
}
