import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../http/schemas.ts'
import { PkField, TrusteeField } from './delegation-fields.schemas.ts'
import { ReducedUser } from '../users/users.schemas.ts'

export const QuestionDelegation = Type.Object({
  id: Type.Integer(),
  url: Url,
  user: Type.Integer({ description: 'the delegating user' }),
  question: Type.Integer(),
  question_url: Url,
  trustee: Nullable(Type.Integer({ description: 'null: a block, "do not delegate" on this question' })),
  trustee_info: Nullable(ReducedUser),
  active: Type.Boolean(),
  created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
})
export type QuestionDelegation = Static<typeof QuestionDelegation>

export const QuestionDelegationListQuery = ListQuery({
  question: Type.Optional(IdFilter),
  trustee: Type.Optional(IdFilter),
  history: Type.Optional(Type.String({ maxLength: 10, description: 'on (1, true, ...): revoked delegations too' })),
})
export type QuestionDelegationListQuery = Static<typeof QuestionDelegationListQuery>

export const QuestionDelegationCreate = Type.Object({
  question: PkField('the question'),
  trustee: TrusteeField,
})
export type QuestionDelegationCreate = Static<typeof QuestionDelegationCreate>

export const QuestionDelegationUpdate = Type.Object({
  trustee: Type.Optional(TrusteeField),
})
export type QuestionDelegationUpdate = Static<typeof QuestionDelegationUpdate>

export const QuestionDelegationsToMe = Type.Object({
  results: Type.Array(Type.Object({ question: Type.Integer(), question_url: Url, count: Type.Integer() })),
})
export type QuestionDelegationsToMe = Static<typeof QuestionDelegationsToMe>
