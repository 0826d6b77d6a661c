import type { App } from '../../http/app-type.ts'
import type { Caller } from '../../core/caller.ts'
import { fieldError, NotFound, invalidPk } from '../../core/errors.ts'
import { IdParams } from '../../http/route-schemas.ts'
import { readErrors } from '../../http/schemas.ts'
import { areaReleases } from '../demographics/demographics.service.ts'
import { weightingRepository } from './weighting.repository.ts'
import { Type } from 'typebox'
import { withMediaTypes } from '../demographics/demographics.schemas.ts'
import { AgeBreakdown, AgeQuery, AreaBreakdown, AreaQuery, LegacyQuery } from './weighting.schemas.ts'
import { weightedAreaSvg, weightedResultSvg } from './weighting.svg.ts'
import { loadQuestion, overallResult, weightingOptions, type WeightingOptions } from './weighting.service.ts'
import { ageBreakdown, areaBreakdown } from './weighting-breakdowns.service.ts'

/**
 * Results weighted to the census population (question_weighted_demographics): by age band, by region, and overall.
 * Anyone may read them (public results, aggregates only, released as question_demographics and
 * question_geographics release the same answers); a question the caller may not see answers 404. Three statements
 * per request (the question, its answers with their authors, the census), and by region the map's release.
 */
export function weightingRoutes(app: App): void {
  const options = (extra: Partial<WeightingOptions> = {}) => weightingOptions(app.config, extra)

  /** The question's answers by age, or undefined when the caller may not see it. */
  const byAge = async (caller: Caller | null, questionId: number) => {
    const question = await weightingRepository(app.db).visibleQuestion(caller, questionId)
    if (!question) return undefined
    const loaded = await loadQuestion(app.db, questionId)
    return { qid: questionId, data: ageBreakdown(loaded, options()), overall: overallResult(loaded, options()) }
  }

  const ageDescription =
    'One point per age band (when answering) that question_demographics publishes, with ratings (`age` the band’s first ' +
    'age, `age_range` its label): the plain mean, the mean weighted to the census population of the respondents’ regions ' +
    'in that band, the weighted shares of levels 1..5 (percent) and the largest 95 % margin among the shares (percentage ' +
    'points), unweighted and weighted. Private answers count only where MIN_CELL_SIZE of them are together. `overall` ' +
    'is the whole question, weighted on age band x region.'

  app.get('/api/question_weighted_demographics/', {
    schema: {
      summary: 'Census-weighted results of a question by age (older clients)',
      description: `The same answer as /api/question_weighted_demographics/{id}/age/ for ?question=<id>. ${ageDescription}`,
      querystring: LegacyQuery,
      response: { 200: AgeBreakdown, ...readErrors },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'Question Weighted Demographics', description: 'Results of a question weighted to the census population.' },
    },
    handler: async (request) => {
      const { question } = request.query as LegacyQuery
      const answer = await byAge(request.caller, question)
      if (!answer) throw fieldError('question', invalidPk(question))
      return answer
    },
  })

  app.get('/api/question_weighted_demographics/:id/age/', {
    schema: {
      summary: 'Census-weighted results of a question by age band',
      description: `${ageDescription} \`?format=svg\` draws it: the shares as answered and weighted with their margins, and the weighted mean of each band.`,
      params: IdParams,
      querystring: AgeQuery,
      response: {
        200: withMediaTypes('The result, in JSON or (with `?format=svg`) as a picture.', AgeBreakdown, {
          'image/svg+xml': Type.String({ description: 'Every number drawn is written beside its mark' }),
        }),
        ...readErrors,
      },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      formats: ['svg'],
      resource: { name: 'Question Weighted Demographics By Age', description: 'A question’s results by age, weighted to the census.' },
    },
    handler: async (request, reply) => {
      const answer = await byAge(request.caller, request.params.id)
      if (!answer) throw NotFound()
      if ((request.query as AgeQuery).format === 'svg') return reply.type('image/svg+xml; charset=utf-8').send(weightedResultSvg(answer))
      return answer
    },
  })

  app.get('/api/question_weighted_demographics/:id/area/', {
    schema: {
      summary: 'Census-weighted results of a question by region',
      description:
        'One entry per region with a census record and rated respondents of known age, that question_geographics publishes: ' +
        'the shares of levels 1..5 weighted ' +
        'by age band to the region’s census (`percentage`, and `weighted_raw` the people they stand for) and the largest 95 % ' +
        'margin among them (percentage points). voter_age__gte and voter_age__lte (0..150) keep the public answers of ' +
        'respondents of those ages when answering (a region then needs MIN_CELL_SIZE of them). `overall` is the whole ' +
        'question in that age range, weighted on age band x region. `?format=svg` draws the weighted mean of each region.',
      params: IdParams,
      querystring: AreaQuery,
      response: {
        200: withMediaTypes('The result, in JSON or (with `?format=svg`) as a picture.', AreaBreakdown, {
          'image/svg+xml': Type.String({ description: 'Every number drawn is written beside its mark' }),
        }),
        ...readErrors,
      },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      formats: ['svg'],
      resource: { name: 'Question Weighted Demographics By Area', description: 'A question’s results by region, weighted to the census.' },
    },
    handler: async (request, reply) => {
      const query = request.query as AreaQuery
      if (query.voter_age__gte !== undefined && query.voter_age__lte !== undefined && query.voter_age__gte > query.voter_age__lte)
        throw fieldError('voter_age__gte', 'Ensure this value is less than or equal to voter_age__lte.')
      const questionId = request.params.id
      const question = await weightingRepository(app.db).visibleQuestion(request.caller, questionId)
      if (!question) throw NotFound()
      const [loaded, { releases }] = await Promise.all([
        loadQuestion(app.db, questionId),
        areaReleases(app.db, question, app.config.minCellSize),
      ])
      const ages = { voterAgeGte: query.voter_age__gte, voterAgeLte: query.voter_age__lte }
      const answer = {
        qid: questionId,
        data: areaBreakdown(loaded, options(ages), releases),
        overall: overallResult(loaded, options(ages)),
      }
      if (query.format === 'svg') {
        const names = await weightingRepository(app.db).areaNames(answer.data.map((point) => point.region_id))
        return reply.type('image/svg+xml; charset=utf-8').send(weightedAreaSvg(answer, names))
      }
      return answer
    },
  })
}
