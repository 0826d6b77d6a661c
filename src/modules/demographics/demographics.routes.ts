import { Type } from 'typebox'
import type { App } from '../../http/app-type.ts'
import { readErrors } from '../../http/schemas.ts'
import {
  CSV_TYPE,
  demographicsCsv,
  GEOJSON_TYPE,
  geographicsCsv,
  geographicsGeoJson,
  toQuestionDemographics,
} from './demographics.mapper.ts'
import {
  QuestionDemographics,
  QuestionDemographicsQuery,
  QuestionGeographics,
  QuestionGeographicsQuery,
  UserDemographics,
  UserDemographicsQuery,
  withMediaTypes,
} from './demographics.schemas.ts'
import { answerBreakdown, areaBreakdown, checkFilterTargets, peopleBreakdown, questionFor } from './demographics.service.ts'

const CsvText = Type.String({ description: 'RFC 4180 CSV with a header line: the published cells of the JSON answer' })
const GeoJsonText = Type.String({ description: 'a GeoJSON FeatureCollection of Point features' })

/** Breakdowns of answers and of people by age, gender and area (question_demographics, users/demographics, question_geographics). */
export function demographicsRoutes(app: App): void {
  app.get('/api/question_demographics/', {
    schema: {
      summary: "A question's answers by age band at answering, gender and value",
      description:
        'Counts of current answers (skips included) per published cell: a cell counts at least MIN_CELL_SIZE answers, private ' +
        'answers count only where MIN_CELL_SIZE of them are together, and cells are withheld so that none can be derived; with a ' +
        'filter, public answers only. `?format=csv` gives the same cells as a table. See docs/results.md.',
      querystring: QuestionDemographicsQuery,
      response: {
        200: withMediaTypes('The cells, in JSON or (with `?format=csv`) CSV.', QuestionDemographics, { 'text/csv': CsvText }),
        ...readErrors,
      },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      formats: ['csv'],
      resource: { name: 'Question Demographics', description: "A question's answers by age band, gender and value." },
    },
    handler: async (request, reply) => {
      const query = request.query
      const filters = { group: query.user__group_memberships__group, geo: query.user__locations__geo }
      await checkFilterTargets(app.db, filters, { group: 'user__group_memberships__group', geo: 'user__locations__geo' })
      const question = await questionFor(app.db, request.caller, query.question)
      const breakdown = await answerBreakdown(app.db, question, filters, app.config.minCellSize)
      if (query.format === 'csv') return reply.type(CSV_TYPE).send(demographicsCsv(breakdown))
      return toQuestionDemographics(breakdown)
    },
  })

  app.get('/api/users/demographics/', {
    schema: {
      summary: 'People by age group and gender',
      description:
        "Active accounts per (age group today, gender), as the web app's age chart reads them; `age_group` null: no date of birth. " +
        'Cells of fewer than MIN_CELL_SIZE people are left out, and more where those left out would add up to 1..MIN_CELL_SIZE-1.',
      querystring: UserDemographicsQuery,
      response: { 200: UserDemographics, ...readErrors },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      resource: { name: 'User Demographics', description: 'People by age group and gender, optionally of one area.' },
    },
    handler: async (request) => {
      const geo = request.query.locations__geo
      await checkFilterTargets(app.db, { geo }, { geo: 'locations__geo' })
      return peopleBreakdown(app.db, geo, app.config.minCellSize)
    },
  })

  app.get('/api/question_geographics/', {
    schema: {
      summary: "A question's answers per area, for a map",
      description:
        'Every published area with respondents (at least MIN_CELL_SIZE of them; private answers count where MIN_CELL_SIZE of them ' +
        'are together), with its counts and direct figures; not paginated. `?format=geojson` gives a FeatureCollection of points, ' +
        '`?format=csv` the same figures as a table. See docs/results.md.',
      querystring: QuestionGeographicsQuery,
      response: {
        200: withMediaTypes('The areas, in JSON, GeoJSON (`?format=geojson`) or CSV (`?format=csv`).', QuestionGeographics, {
          'application/geo+json': GeoJsonText,
          'text/csv': CsvText,
        }),
        ...readErrors,
      },
    },
    config: {
      access: 'anyone',
      cachedForAnyone: true,
      formats: ['csv', 'geojson'],
      resource: { name: 'Question Geographics', description: "A question's answers per area." },
    },
    handler: async (request, reply) => {
      const question = await questionFor(app.db, request.caller, request.query.question)
      const { areas, geographics } = await areaBreakdown(app.db, question, app.config.minCellSize)
      if (request.query.format === 'csv') return reply.type(CSV_TYPE).send(geographicsCsv(areas))
      if (request.query.format === 'geojson') {
        const coordinates = new Map(areas.map((area) => [area.area.id, area.coordinates]))
        return reply.type(GEOJSON_TYPE).send(JSON.stringify(geographicsGeoJson(geographics, coordinates)))
      }
      return geographics
    },
  })
}
