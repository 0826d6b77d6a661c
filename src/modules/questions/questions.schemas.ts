import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url, IdList } from '../../http/schemas.ts'
import { statisticsProperties } from '../../engines/statistics/statistics-fields.ts'
import { Area } from '../areas/areas.schemas.ts'
import { TagInfo } from '../tags/tags.schemas.ts'
import { FullUser } from '../users/users.schemas.ts'

const direct = statisticsProperties('direct')
const liquid = statisticsProperties('liquid')

/** A question's or choice's answer by one user, as my_vote and their_vote list it. */
export const VoteSummary = Type.Object({
  id: Type.Integer(),
  object_id: Type.Integer({ description: 'question id for likert answers, choice id for choice answers' }),
  value: Nullable(Type.Integer({ minimum: 1, maximum: 5 })),
  skipped: Type.Boolean(),
  private: Type.Boolean(),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type VoteSummary = Static<typeof VoteSummary>

export const Importance = Type.Object({
  object_id: Type.Integer(),
  value: Type.Integer({ minimum: 1, maximum: 5 }),
  modified_at: Timestamp,
})

/** Spec 2.6. */
export const QuestionTag = Type.Object({
  id: Type.Integer(),
  tag: TagInfo,
  created_at: Timestamp,
  modified_at: Timestamp,
  ...direct,
})
export type QuestionTag = Static<typeof QuestionTag>

const choiceCore = {
  id: Type.Integer(),
  text: Type.String(),
  store_number: Type.Integer({ description: 'order of the choice within its question, from 0' }),
  created_at: Timestamp,
  modified_at: Timestamp,
  ...direct,
  ...liquid,
  polarisation: Type.Number(),
}

/** Spec 2.7, embedded in a question. */
export const Choice = Type.Object({ ...choiceCore, url: Url })
export type Choice = Static<typeof Choice>

/** Spec 2.7, the question_choices listing form. */
export const ChoiceListItem = Type.Object({ ...choiceCore, question: Url })
export type ChoiceListItem = Static<typeof ChoiceListItem>

export const QuestionLink = Type.Object({ id: Type.Integer(), link: Type.String(), title: Type.String() })

/** Spec 2.5, the full question. */
export const Question = Type.Object({
  id: Type.Integer(),
  url: Url,
  question: Type.String(),
  slug: Type.String(),
  my_vote: Type.Array(VoteSummary),
  their_vote: Type.Array(VoteSummary, { description: 'public answers of the user named by answered_by or votes__user__username' }),
  my_importance: Type.Array(Importance),
  user: FullUser,
  tags: Type.Array(QuestionTag),
  choices: Type.Array(Choice),
  description: Type.String(),
  perodic_repeat_interval: Nullable(Type.Integer({ description: 'seconds between repeats of a recurring question' })),
  ogImage: Nullable(Type.String()),
  subtype: Type.String(),
  topic: Nullable(Type.Integer()),
  topic_info: Nullable(TagInfo),
  group: Nullable(Type.Integer()),
  group_url: Nullable(Url),
  group_name: Nullable(Type.String()),
  geo: Nullable(Type.Integer()),
  geo_url: Nullable(Url),
  geo_info: Nullable(Area),
  links: Type.Array(QuestionLink),
  start_at: Nullable(Timestamp),
  end_at: Nullable(Timestamp),
  publish: Type.Boolean(),
  count_comments: Type.Integer(),
  count_comments_suggestion: Type.Integer(),
  count_comments_reason: Type.Integer(),
  count_comments_info: Type.Integer(),
  ...direct,
  ...liquid,
  polarisation: Type.Number(),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type Question = Static<typeof Question>

const idList = IdList()

export const QuestionListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  id__in: Type.Optional(idList),
  search: Type.Optional(Type.String({ maxLength: 500 })),
  exact_question: Type.Optional(Type.String({ maxLength: 500 })),
  user__username: Type.Optional(Type.String({ maxLength: 150 })),
  user__id: Type.Optional(IdFilter),
  answered_by: Type.Optional(IdFilter),
  votes__user__username: Type.Optional(Type.String({ maxLength: 150 })),
  in_collections__parent: Type.Optional(IdFilter),
  group: Type.Optional(IdFilter),
  in_group_all: Type.Optional(IdFilter),
  in_group_disabled: Type.Optional(IdFilter),
  tags__tag: Type.Optional(IdFilter),
  topic: Type.Optional(IdFilter),
  subtype: Type.Optional(Type.Union([Type.Literal('likert'), Type.Literal('mcq')])),
  count: Type.Optional(Type.String({ description: 'any non-empty value: answer {"count": N} instead of a page' })),
  nearby: Type.Optional(
    Type.String({
      maxLength: 10,
      description:
        "on (1, true, ...): questions whose area is the caller's district, region or country; none for a caller without a place or without sign-in",
    }),
  ),
  my_history: Type.Optional(
    Type.String({
      maxLength: 10,
      description: 'on (1, true, ...): questions the caller answered, the latest answered first unless ordering says otherwise',
    }),
  ),
})
export type QuestionListQuery = Static<typeof QuestionListQuery>

export const CountOnly = Type.Object({ count: Type.Integer() })
