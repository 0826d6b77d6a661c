import { Type, type Static, type TSchema } from 'typebox'
import { IdFilter, Nullable } from '../../http/schemas.ts'
import { statisticsProperties } from '../../engines/statistics/statistics-fields.ts'

const format = (extra: string[], description: string) =>
  Type.Optional(
    Type.Union(
      ['json', 'api', ...extra].map((name) => Type.Literal(name)),
      { description },
    ),
  )

/** `question_demographics`: the question, and the web app's two filters on the respondents. */
export const QuestionDemographicsQuery = Type.Object({
  question: IdFilter,
  user__group_memberships__group: Type.Optional(IdFilter),
  user__locations__geo: Type.Optional(IdFilter),
  format: format(['csv'], '`csv` for the open-data table (small cells suppressed); JSON by default'),
})
export type QuestionDemographicsQuery = Static<typeof QuestionDemographicsQuery>

export const AgeGenderValue = Type.Object({
  id__count: Type.Integer({ description: 'answers in this cell (at least MIN_CELL_SIZE)' }),
  age_range: Type.String({ description: 'age band at answering ("<15", "15-25", ... "85+"); answers of unknown age are in no cell' }),
  user__gender: Type.Integer({ description: '0 not said, 1 male, 2 female, 3 other' }),
  value: Nullable(Type.Integer({ description: 'the rating 1..5; null for a skip' })),
  object__text: Nullable(Type.String({ description: "the choice's text (multiple choice); null for a likert question" })),
})

export const QuestionDemographics = Type.Object({
  total_votes: Type.Integer({
    description: 'answers counted, skips and unknown ages included; private answers once MIN_CELL_SIZE of them (public only with a filter)',
  }),
  ageggendervalues: Type.Array(AgeGenderValue, { description: 'one entry per published (age band, gender, value, choice) cell' }),
})
export type QuestionDemographics = Static<typeof QuestionDemographics>

/** `users/demographics`: people of an area. */
export const UserDemographicsQuery = Type.Object({
  locations__geo: Type.Optional(IdFilter),
  format: format([], 'JSON by default'),
})
export type UserDemographicsQuery = Static<typeof UserDemographicsQuery>

export const UserDemographic = Type.Object({
  age_group: Nullable(Type.Integer({ description: '10 for ages 0-10, 9 for 11-20, ... 1 for 91-100, 0 past 100; null: no date of birth' })),
  gender: Type.Integer({ description: '0 not said, 1 male, 2 female, 3 other' }),
  id__count: Type.Integer({ description: 'people in this cell (at least MIN_CELL_SIZE)' }),
})
export const UserDemographics = Type.Array(UserDemographic)

/** `question_geographics`: one question's answers per area. */
export const QuestionGeographicsQuery = Type.Object({
  question: IdFilter,
  format: format(['csv', 'geojson'], '`geojson` for a FeatureCollection of points, `csv` for the open-data table; JSON by default'),
})
export type QuestionGeographicsQuery = Static<typeof QuestionGeographicsQuery>

export const AreaSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  code: Type.String(),
  m_type: Type.String(),
  parent: Nullable(Type.Integer()),
})

export const ChoiceInArea = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  count: Type.Integer({ description: 'answers choosing it in the area, skips of it included' }),
  ...statisticsProperties('direct'),
})

export const AreaResult = Type.Object({
  area: AreaSummary,
  count: Type.Integer({ description: 'respondents of the area (answers, skips included)' }),
  skipped: Type.Integer(),
  ...statisticsProperties('direct'),
  choices: Nullable(Type.Array(ChoiceInArea, { description: 'multiple choice: every choice of the question; null for likert' })),
})
export type AreaResult = Static<typeof AreaResult>

export const QuestionGeographics = Type.Object({
  question: Type.Integer(),
  subtype: Type.String(),
  results: Type.Array(AreaResult, { description: 'every published area, by id; not paginated' }),
})
export type QuestionGeographics = Static<typeof QuestionGeographics>

/** Answers sent as text (CSV, GeoJSON) are described by media type beside the JSON one. */
export function withMediaTypes(description: string, json: TSchema, others: Record<string, TSchema>) {
  const content: Record<string, { schema: TSchema }> = { 'application/json': { schema: json } }
  for (const [type, schema] of Object.entries(others)) content[type] = { schema }
  return { description, content }
}
