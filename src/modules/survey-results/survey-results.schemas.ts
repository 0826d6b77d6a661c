import { Type, type Static, type TSchema } from 'typebox'
import { IdFilter, ListQuery, Nullable, Page, Url } from '../../http/schemas.ts'
export { withMediaTypes } from '../demographics/demographics.schemas.ts'

/** Answers of survey_results and survey_results_all (docs/results.md, "Survey results"). */

const format = Type.Optional(
  Type.Union(
    ['json', 'api', 'csv'].map((name) => Type.Literal(name)),
    { description: '`csv` for the open-data table (small cells suppressed); JSON by default' },
  ),
)

/** Levels 1..5; a level of fewer than MIN_CELL_SIZE ratings (or withheld with one) is left out. */
const levels = <T extends TSchema>(schema: T) =>
  Type.Object(
    {
      '1': Type.Optional(schema),
      '2': Type.Optional(schema),
      '3': Type.Optional(schema),
      '4': Type.Optional(schema),
      '5': Type.Optional(schema),
    },
    { description: 'the published levels: one of fewer than MIN_CELL_SIZE ratings, or withheld with one, is left out' },
  )
const Margin = (what: string) => Nullable(Type.Number({ description: `${what}; null with fewer than two respondents` }))
const Mean = Nullable(Type.Number({ description: 'mean rating 1..5; null without ratings' }))

export const DirectShare = Type.Object({
  count: Type.Integer({ description: 'ratings at this level' }),
  percentage: Nullable(Type.Number({ description: 'share of the ratings, 0..100; null without ratings' })),
  margin: Margin('95 % margin of the share, percentage points (simple random sampling)'),
})

export const DirectResult = Type.Object(
  {
    average_vote: Mean,
    average_vote_margin: Margin('95 % margin of the mean rating, rating points'),
    shares: levels(DirectShare),
  },
  { description: 'every rating as given, unweighted' },
)

export const WeightedShare = Type.Object({
  weighted_percentage: Nullable(Type.Number({ description: 'census-weighted share, 0..100' })),
  weighted_margin: Margin('95 % margin of the weighted share, percentage points (design-based)'),
  weighted_count: Type.Number({ description: 'sum of the weights at this level: the population it stands for' }),
})

export const WeightedResult = Type.Object(
  {
    method: Nullable(
      Type.Union([Type.Literal('post-stratified'), Type.Literal('raked')], { description: 'null when nobody could be weighted' }),
    ),
    partial: Type.Boolean({ description: 'post-stratified on the cells with respondents only, as raking could not meet both margins' }),
    trimmed: Type.Boolean({ description: 'a weight was capped at WEIGHT_CAP times the mean' }),
    weighted_sample_size: Type.Integer({ description: 'ratings behind the weighted figures' }),
    excluded: Type.Integer({ description: 'ratings left out of the weighted figures: unknown age or no region with census' }),
    effective_sample_size: Type.Number({ description: "Kish's (Σw)² / Σw²" }),
    design_effect: Nullable(Type.Number({ description: 'weighted_sample_size / effective_sample_size' })),
    weighted_average_vote: Mean,
    weighted_average_vote_margin: Margin('95 % margin of the weighted mean rating, rating points'),
    shares: levels(WeightedShare),
  },
  { description: 'weighted to the census (weightedQuestionResult): age band x region, post-stratified or raked, trimmed' },
)

export const ChoiceResult = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  count: Type.Integer({ description: 'current picks of this choice, skips not included' }),
  percentage: Nullable(Type.Number({ description: 'share of the question’s picks, 0..100' })),
})

export const SurveyResult = Type.Object({
  id: Type.Integer(),
  url: Url,
  question: Type.String({ description: 'the question’s text' }),
  subtype: Type.String({ description: '`likert` or `mcq`' }),
  sample_size: Type.Integer({
    description:
      'ratings (likert) or picks (multiple choice) given, skips not included; private answers count once the question holds MIN_CELL_SIZE of them',
  }),
  skipped: Type.Integer({ description: 'explicit skips, counted apart (private ones as above)' }),
  direct: Nullable(DirectResult),
  weighted: Nullable(WeightedResult),
  choices: Nullable(
    Type.Array(ChoiceResult, {
      description:
        'multiple choice: the published choices in their order (one of fewer than MIN_CELL_SIZE picks, or withheld with one, is left out); null for likert',
    }),
  ),
})
export type SurveyResult = Static<typeof SurveyResult>

export const CollectionSummary = Type.Object({ id: Type.Integer(), name: Type.String(), url: Url })

export const CollectionResults = Type.Object({
  collection: CollectionSummary,
  count: Type.Integer({ description: 'questions in results' }),
  results: Type.Array(SurveyResult, { description: 'the collection’s questions the caller may see, in the collection’s order' }),
})
export type CollectionResults = Static<typeof CollectionResults>

export const AllResults = Page(SurveyResult)

export const CollectionResultsQuery = Type.Object({
  collection: IdFilter,
  format,
})
export type CollectionResultsQuery = Static<typeof CollectionResultsQuery>

export const AllResultsQuery = ListQuery({ format })
export type AllResultsQuery = Static<typeof AllResultsQuery>
