import { Type, type Static } from 'typebox'
import { IdFilter, IdList } from '../../http/schemas.ts'
import { statisticsProperties } from '../../engines/statistics/statistics-fields.ts'
import { Choice, VoteSummary } from '../questions/questions.schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'

/** Most questions one answer of next_question_light carries (spec 4.4). */
export const MAX_LIMIT_COUNT = 30

/**
 * Most questions one answer of next_question carries: the older clients ask once with limit_count=100 for a
 * collection, topic or profile and say "Thank you" when those run out, so a shorter page ends their walk early.
 */
export const MAX_LONG_WALK = 100

/** Spec 2.12: a question as the next-question service serves it. */
export const LightQuestion = Type.Object({
  id: Type.Integer(),
  question: Type.String(),
  description: Type.String(),
  slug: Type.String(),
  subtype: Type.String(),
  my_vote: Type.Array(VoteSummary),
  choices: Type.Array(Choice),
  ...statisticsProperties('liquid'),
  polarisation: Type.Number(),
})
export type LightQuestion = Static<typeof LightQuestion>

export const NextQuestionResult = Type.Object({
  returning: Type.Integer({ description: 'how many questions results holds' }),
  results: Type.Array(LightQuestion),
  count: Type.Integer({ description: 'questions matching the query, answered or not' }),
  unanswered: Type.Integer({ description: 'of those, the ones the caller has not answered (a skip is an answer)' }),
})
export type NextQuestionResult = Static<typeof NextQuestionResult>

const idList = (description: string) => IdList(description)
const flag = (description: string) => Type.Optional(Type.String({ maxLength: 10, description }))

/** The query of both paths; they differ only in how many questions limit_count may ask for. */
export function NextQuestionQuery(limitCount: ReturnType<typeof Type.Integer>) {
  return Type.Object({
    ordering: Type.Optional(Type.String({ description: 'question ordering fields, comma-separated, a leading - reverses; id by default' })),
    search: Type.Optional(Type.String({ maxLength: 500 })),
    votes__user__username: Type.Optional(Type.String({ maxLength: 150 })),
    user__username: Type.Optional(Type.String({ maxLength: 150 })),
    user__id: Type.Optional(IdFilter),
    answered_by: Type.Optional(IdFilter),
    in_collections__parent: Type.Optional(IdFilter),
    group: Type.Optional(IdFilter),
    tags__tag: Type.Optional(IdFilter),
    id__in: Type.Optional(idList('only these question ids')),
    'id__in!': Type.Optional(idList('never these question ids (the chatbot sends the ones it already asked)')),
    limit_count: Type.Optional(limitCount),
    return_unanswered_count: flag('1: counts only, no questions'),
    return_full_count: flag('1: counts only, no questions'),
    order: flag('true or 1: with in_collections__parent, the collection order'),
  })
}

export const LightQuery = NextQuestionQuery(
  Type.Integer({ minimum: 1, maximum: MAX_LIMIT_COUNT, description: 'questions to return, 1 to 30, 1 by default' }),
)
export const ClampedQuery = NextQuestionQuery(
  Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'questions to return, 1 by default; above 100 counts as 100' }),
)
export type NextQuestionQuery = Static<typeof LightQuery>
