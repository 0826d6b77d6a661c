import { Type, type Static, type TSchema } from 'typebox'
import { INT4_MAX } from '../../core/integers.ts'
import { Nullable } from '../../http/schemas.ts'

/** Answers of question_weighted_demographics (docs/statistics.md, "Weighting to the census"). */

const Percentage = Nullable(Type.Number({ description: 'share of the ratings, 0..100; null without ratings' }))
const Margin = (what: string) => Nullable(Type.Number({ description: `${what}; null with fewer than two respondents` }))
const Mean = Nullable(Type.Number({ description: 'mean rating 1..5; null without ratings' }))

const levels = <T extends TSchema>(schema: T) => Type.Object({ '1': schema, '2': schema, '3': schema, '4': schema, '5': schema })

export const OverallShare = Type.Object({
  percentage: Percentage,
  margin: Margin('95 % margin of the unweighted share, percentage points (simple random sampling)'),
  weighted_percentage: Nullable(Type.Number({ description: 'census-weighted share, 0..100' })),
  weighted_margin: Margin('95 % margin of the weighted share, percentage points (design-based)'),
  count: Type.Integer({ description: 'ratings at this level' }),
  weighted_count: Type.Number({ description: 'sum of the weights at this level: the population it stands for' }),
})

/** The overall weighted result of a question (weightedQuestionResult). */
export const OverallResult = Type.Object(
  {
    sample_size: Type.Integer({ description: 'ratings given (skips not included)' }),
    skipped: Type.Integer({ description: 'explicit skips, counted apart' }),
    weighted_sample_size: Type.Integer({ description: 'ratings behind the weighted figures' }),
    excluded: Type.Integer({ description: 'ratings left out of the weighted figures: unknown age or no region with census' }),
    effective_sample_size: Type.Number({ description: "Kish's (Σw)² / Σw²" }),
    design_effect: Nullable(Type.Number({ description: 'weighted_sample_size / effective_sample_size' })),
    method: Nullable(Type.Union([Type.Literal('post-stratified'), Type.Literal('raked')])),
    partial: Type.Boolean({ description: 'post-stratified on the cells with respondents only, as raking could not meet both margins' }),
    trimmed: Type.Boolean({ description: 'a weight was capped at WEIGHT_CAP times the mean' }),
    average_vote: Mean,
    average_vote_margin: Margin('95 % margin of the mean rating, rating points'),
    weighted_average_vote: Mean,
    weighted_average_vote_margin: Margin('95 % margin of the weighted mean rating, rating points'),
    shares: levels(OverallShare),
  },
  { description: 'all respondents, post-stratified on age band x region, or raked on the two margins when a cell is too small; trimmed' },
)

export const AgePoint = Type.Object({
  age: Type.Integer({ description: 'the first age of the band (whole years when answering)' }),
  age_range: Type.String({ description: 'the band, as question_demographics names it ("<15", "15-25", ... "85+")' }),
  sample_size: Type.Integer({ description: 'ratings in the band, as released' }),
  weighted_sample_size: Type.Integer({ description: 'of those, respondents with a region with a census record' }),
  effective_sample_size: Type.Number(),
  average_vote: Mean,
  weighted_average_vote: Mean,
  error_margin: Margin('largest 95 % margin among the five unweighted shares, percentage points'),
  error_margin_weighted: Margin('largest 95 % margin among the five weighted shares, percentage points'),
  weighted_vote_breakdown: levels(Percentage),
})

export const AgeBreakdown = Type.Object({
  qid: Type.Integer(),
  data: Type.Array(AgePoint),
  overall: OverallResult,
})

export const AreaPoint = Type.Object({
  region_id: Type.Integer(),
  sample_size: Type.Integer({ description: 'rated respondents of known age (in the age range) in the region' }),
  effective_sample_size: Type.Number(),
  average_vote: Mean,
  weighted_average_vote: Mean,
  error_margin: Margin('largest 95 % margin among the five weighted shares, percentage points'),
  error_margin_unweighted: Margin('largest 95 % margin among the five unweighted shares, percentage points'),
  weighted_vote_breakdown: levels(
    Type.Object({
      percentage: Percentage,
      weighted_raw: Type.Number({ description: 'sum of the weights at this level (people of the census)' }),
    }),
  ),
})

export const AreaBreakdown = Type.Object({
  qid: Type.Integer(),
  data: Type.Array(AreaPoint),
  overall: OverallResult,
})

const AgeLimit = (description: string) => Type.Integer({ minimum: 0, maximum: 150, description })

export const AreaQuery = Type.Object({
  voter_age__gte: Type.Optional(AgeLimit('only respondents at least this old when answering')),
  voter_age__lte: Type.Optional(AgeLimit('only respondents at most this old when answering')),
  format: Type.Optional(
    Type.Union(
      ['json', 'api', 'svg'].map((name) => Type.Literal(name)),
      { description: '`svg` draws the result as a picture (the weighted mean of each region); JSON by default' },
    ),
  ),
})
export type AreaQuery = Static<typeof AreaQuery>

export const AgeQuery = Type.Object({
  format: Type.Optional(
    Type.Union(
      ['json', 'api', 'svg'].map((name) => Type.Literal(name)),
      { description: '`svg` draws the result as a picture (shares with their margins, means by age band); JSON by default' },
    ),
  ),
})
export type AgeQuery = Static<typeof AgeQuery>

export const LegacyQuery = Type.Object({ question: Type.Integer({ minimum: 0, maximum: INT4_MAX, description: 'the question id' }) })
export type LegacyQuery = Static<typeof LegacyQuery>
