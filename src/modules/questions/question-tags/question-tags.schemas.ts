import { Type, type Static } from 'typebox'
import { Id, IdFilter, ListQuery, Timestamp, Url } from '../../../http/schemas.ts'
import { statisticsProperties } from '../../../engines/statistics/statistics-fields.ts'
import { TagInfo } from '../../tags/tags.schemas.ts'

/** A tag on a question (spec 2.6) as its own resource: also the question and its place, position 0 being the topic. */
export const QuestionTagItem = Type.Object({
  id: Type.Integer(),
  url: Url,
  question: Type.Integer(),
  tag: TagInfo,
  position: Type.Integer({ description: '0 for the topic of the question, then the other tags in order' }),
  ...statisticsProperties('direct'),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type QuestionTagItem = Static<typeof QuestionTagItem>

export const QuestionTagListQuery = ListQuery({
  question: Type.Optional(IdFilter),
  tag: Type.Optional(IdFilter),
  id: Type.Optional(IdFilter),
})
export type QuestionTagListQuery = Static<typeof QuestionTagListQuery>

export const QuestionTagCreateBody = Type.Object({ question: Id, tag: Id })
export type QuestionTagCreateBody = Static<typeof QuestionTagCreateBody>
