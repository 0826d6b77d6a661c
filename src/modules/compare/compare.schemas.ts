import { Type, type Static } from 'typebox'
import { ID_LIST_FORMAT, INT4_MAX } from '../../core/integers.ts'
import { IdFilter, ListQuery, Nullable, Timestamp } from '../../http/schemas.ts'

/** The shapes of the comparison resources (docs/compare.md). */

/** compare_n_users_quick compares one person with at most this many at once. */
export const MAX_COMPARED_USERS = 1000

export const Distances = Type.Array(Type.Integer({ minimum: 0 }), {
  minItems: 5,
  maxItems: 5,
  description: 'common questions at distance 0 (same answer) … 4 (opposite ends, or different choices)',
})

const percent = (when: string) =>
  Nullable(Type.Number({ minimum: 0, maximum: 100, description: `100·Σ(i·d_i)/(4·Σd_i): 0 same answers, 100 opposite; null ${when}` }))

/** The figures of one comparison, as the quick forms give them. */
export const QuickFigures = Type.Object({
  difference_percent: percent('below MIN_COMMON_QUESTIONS (5) common questions'),
  questions_counted: Type.Integer({ minimum: 0, description: 'common questions compared' }),
  difference_distances: Distances,
})
export type QuickFigures = Static<typeof QuickFigures>

const personId = (who: string) => Type.Integer({ minimum: 0, maximum: INT4_MAX, description: who })

export const PairQuery = Type.Object({
  usera: personId('the person comparing (usually the caller)'),
  userb: personId('the person compared with'),
})
export type PairQuery = Static<typeof PairQuery>

export const ManyQuery = Type.Object({
  usera: personId('the person comparing (usually the caller)'),
  users: Type.String({
    format: ID_LIST_FORMAT,
    maxLength: 20000,
    description: `comma-separated ids of the people compared with, at most ${MAX_COMPARED_USERS}`,
  }),
})
export type ManyQuery = Static<typeof ManyQuery>

const AnswerSide = Type.Object({
  value: Nullable(Type.Integer({ description: 'the rating 1..5 (likert); null for multiple choice' })),
  choice: Nullable(Type.Integer({ description: 'the choice picked (multiple choice); null for likert' })),
  choice_text: Nullable(Type.String({ description: "the choice's text; null for likert" })),
})

export const ComparedQuestion = Type.Object({
  question: Type.Integer({ description: 'question id' }),
  text: Type.String({ description: "the question's text" }),
  subtype: Type.String(),
  distance: Type.Integer({ minimum: 0, maximum: 4 }),
  usera: AnswerSide,
  userb: AnswerSide,
})
export type ComparedQuestion = Static<typeof ComparedQuestion>

export const TopicDiff = Type.Object({ id: Type.Integer({ description: 'tag id' }), diffs: Distances })

export const CompareUsers = Type.Object({
  usera: Type.Integer(),
  userb: Type.Integer(),
  questions_counted: Type.Integer({ minimum: 0, description: 'common questions compared' }),
  difference_percent: percent('without any common question'),
  difference_distances: Distances,
  topic_diffs: Type.Record(Type.String(), TopicDiff, {
    description: 'per tag of the common questions, by tag name: the tag id and the histogram of those questions',
  }),
  most_different: Type.Array(ComparedQuestion, {
    description: 'up to 5 common questions at distance 2 or more, largest distance first, then lowest question id',
  }),
  most_agreed: Type.Array(ComparedQuestion, {
    description: 'up to 5 common questions at distance 0 or 1, smallest distance first, then lowest question id',
  }),
})
export type CompareUsers = Static<typeof CompareUsers>

export const CompareUsersQuick = Type.Object({ usera: Type.Integer(), userb: Type.Integer(), ...QuickFigures.properties })
export type CompareUsersQuick = Static<typeof CompareUsersQuick>

export const CompareMany = Type.Object({
  results: Type.Record(Type.String(), QuickFigures, { description: 'by the id of each person compared with' }),
})
export type CompareMany = Static<typeof CompareMany>

export const Relation = Type.Union([Type.Literal('friend'), Type.Literal('delegate')])

export const FriendsCompare = Type.Object({
  results: Type.Record(
    Type.String(),
    Type.Object({
      ...QuickFigures.properties,
      relation: Type.Array(Relation, { description: 'friend: an accepted friendship; delegate: a live delegation to them' }),
    }),
    { description: "by the id of each of the caller's friends and trustees" },
  ),
})
export type FriendsCompare = Static<typeof FriendsCompare>

/** A kept comparison (user_compares), as user_compare lists it. */
export const UserCompare = Type.Object({
  id: Type.Integer(),
  user: Type.Integer({ description: 'who compared (the caller)' }),
  other: Type.Integer({ description: 'the person compared with' }),
  questions_counted: Type.Integer({ minimum: 0 }),
  difference_percent: percent('without any common question'),
  difference_distances: Distances,
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type UserCompare = Static<typeof UserCompare>

export const UserCompareQuery = ListQuery({ other: Type.Optional(IdFilter) })
export type UserCompareQuery = Static<typeof UserCompareQuery>

/** One entry of a user's latest_compare (spec 2.2), shown to that user only. */
export const LatestCompare = Type.Object({
  user: Type.Integer({ description: 'the person compared with' }),
  difference_percent: percent('without any common question'),
  questions_counted: Type.Integer({ minimum: 0 }),
  difference_distances: Distances,
  modified_at: Timestamp,
})
export type LatestCompare = Static<typeof LatestCompare>
