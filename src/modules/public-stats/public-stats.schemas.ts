import { Type, type Static } from 'typebox'
import { Nullable, Timestamp, Url } from '../../http/schemas.ts'
import { statisticsProperties } from '../../engines/statistics/statistics-fields.ts'
import { Choice, QuestionListQuery, QuestionTag } from '../questions/questions.schemas.ts'

/** One question's figures: the stored families of spec 2.8, its choices' and tags', and who answered when. */
export const QuestionStats = Type.Object({
  id: Type.Integer(),
  url: Url,
  question_url: Url,
  question: Type.String(),
  subtype: Type.String(),
  ...statisticsProperties('direct'),
  ...statisticsProperties('liquid'),
  polarisation: Type.Number(),
  answer_count: Type.Integer({ description: 'current answers, skips included' }),
  private_answer_count: Type.Integer({ description: 'of those, private ones (they count in every figure)' }),
  replaced_answer_count: Type.Integer({ description: 'earlier answers people replaced by a new one' }),
  first_answer_at: Nullable(Timestamp),
  last_answer_at: Nullable(Timestamp),
  choices: Type.Array(Choice),
  tags: Type.Array(QuestionTag),
})
export type QuestionStats = Static<typeof QuestionStats>

/** The question listing's filters apply to question_stats too. */
export const QuestionStatsListQuery = QuestionListQuery

export const GeneralStats = Type.Object({
  user_count: Type.Integer({ description: 'active accounts (not deactivated, not deleted)' }),
  question_count: Type.Integer({ description: 'published questions' }),
  answer_count: Type.Integer({
    description:
      'current answers, likert and choice, skips included; in each of these counts, private ones once it holds MIN_CELL_SIZE of them',
  }),
  question_vote_count: Type.Integer(),
  choice_vote_count: Type.Integer(),
  skip_count: Type.Integer(),
  comment_count: Type.Integer({ description: 'comments not hidden by moderators' }),
  comment_vote_count: Type.Integer({
    description: 'active comment votes as the comments publish them: private ones in batches of MIN_CELL_SIZE',
  }),
  collection_count: Type.Integer(),
  group_count: Type.Integer(),
  tag_count: Type.Integer(),
  generated_at: Timestamp,
})
export type GeneralStats = Static<typeof GeneralStats>

export const UserCount = Type.Object({ result: Type.Integer({ description: 'active accounts' }) })

export const INTERVALS = ['day', 'week', 'month'] as const
export type Interval = (typeof INTERVALS)[number]

export const AdvancedStatsQuery = Type.Object({
  start: Type.Optional(Type.String({ format: 'date', description: 'first day (UTC), 29 days before end by default' })),
  end: Type.Optional(Type.String({ format: 'date', description: 'last day (UTC), today by default' })),
  interval: Type.Optional(
    Type.Union(
      INTERVALS.map((name) => Type.Literal(name)),
      { description: 'bucket size, day by default' },
    ),
  ),
})
export type AdvancedStatsQuery = Static<typeof AdvancedStatsQuery>

const Series = Type.Array(Type.Integer())
export const AdvancedStats = Type.Object({
  results: Type.Object({
    start: Type.String({ format: 'date' }),
    end: Type.String({ format: 'date' }),
    interval: Type.String(),
    labels: Type.Array(Type.String({ format: 'date' }), { description: 'first day of each bucket' }),
    data: Type.Object({
      user_count: Series,
      new_user_count: Series,
      answer_count: Type.Array(Type.Integer(), {
        description: 'answers given (replaced ones included); private ones on the days that hold MIN_CELL_SIZE of them',
      }),
      answerer_count: Type.Array(Type.Integer(), {
        description: 'people who gave them; private answers count once MIN_CELL_SIZE of them have one in the interval',
      }),
      question_count: Series,
      comment_count: Series,
    }),
  }),
})
export type AdvancedStats = Static<typeof AdvancedStats>
