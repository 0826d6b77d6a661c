import { Type, type Static } from 'typebox'
import { Id, IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../../http/schemas.ts'
import { statisticsProperties } from '../../../engines/statistics/statistics-fields.ts'

/** A link from one question to a related one, with the direct statistics of votes on how related they are. */
export const ConnectionItem = Type.Object({
  id: Type.Integer(),
  url: Url,
  question_from: Type.Integer(),
  question_to: Type.Integer(),
  user: Nullable(Type.Integer({ description: 'who connected the questions' })),
  ...statisticsProperties('direct'),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type ConnectionItem = Static<typeof ConnectionItem>

export const ConnectionListQuery = ListQuery({
  question_from: Type.Optional(IdFilter),
  question_to: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
  id: Type.Optional(IdFilter),
})
export type ConnectionListQuery = Static<typeof ConnectionListQuery>

export const ConnectionCreateBody = Type.Object({ question_from: Id, question_to: Id })
export type ConnectionCreateBody = Static<typeof ConnectionCreateBody>
