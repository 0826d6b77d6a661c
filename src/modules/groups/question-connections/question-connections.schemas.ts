import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Timestamp, Url } from '../../../http/schemas.ts'
import { INT4_MAX } from '../../../core/integers.ts'

export const QuestionConnection = Type.Object({
  id: Type.Integer(),
  url: Url,
  group: Type.Integer(),
  question: Type.Integer(),
  question_url: Url,
  active: Type.Boolean({ description: 'inactive (disabled) questions stay in the group but leave its active list' }),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type QuestionConnection = Static<typeof QuestionConnection>

export const QuestionConnectionListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  group: Type.Optional(IdFilter),
  question: Type.Optional(IdFilter),
  active: Type.Optional(Type.String({ maxLength: 10, description: 'true or false (also 1/0, yes/no)' })),
})
export type QuestionConnectionListQuery = Static<typeof QuestionConnectionListQuery>

const Pk = Type.Integer({ minimum: 0, maximum: INT4_MAX })
export const QuestionConnectionCreate = Type.Object({ group: Pk, question: Pk, active: Type.Optional(Type.Boolean()) })
export type QuestionConnectionCreate = Static<typeof QuestionConnectionCreate>

export const QuestionConnectionReplace = Type.Object({ active: Type.Boolean() })
export const QuestionConnectionPatch = Type.Object({ active: Type.Optional(Type.Boolean()) })
export type QuestionConnectionChanges = Static<typeof QuestionConnectionPatch>
