import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../http/schemas.ts'
import { PkField, TrusteeField } from './delegation-fields.schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'
import { ReducedUser } from '../users/users.schemas.ts'

export const TagInfo = Type.Object({ id: Type.Integer(), text: Type.String() })
export type TagInfo = Static<typeof TagInfo>

export const TagDelegation = Type.Object({
  id: Type.Integer(),
  url: Url,
  user: Type.Integer({ description: 'the delegating user' }),
  tag: Type.Integer(),
  tag_info: TagInfo,
  trustee: Nullable(Type.Integer({ description: 'null: a block, "do not delegate" on this tag' })),
  trustee_info: Nullable(ReducedUser),
  priority: Type.Integer({ description: "the delegation's place in its user's own order, lowest first" }),
  active: Type.Boolean(),
  created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
})
export type TagDelegation = Static<typeof TagDelegation>

export const TagDelegationListQuery = ListQuery({
  tag: Type.Optional(IdFilter),
  trustee: Type.Optional(IdFilter),
  history: Type.Optional(Type.String({ maxLength: 10, description: 'on (1, true, ...): revoked delegations too' })),
})
export type TagDelegationListQuery = Static<typeof TagDelegationListQuery>

const Priority = Type.Integer({
  minimum: 0,
  maximum: INT4_MAX,
  description: 'place in your order, lowest first; a new delegation goes last by default',
})

export const TagDelegationCreate = Type.Object({
  tag: PkField('the tag'),
  trustee: TrusteeField,
  priority: Type.Optional(Priority),
})
export type TagDelegationCreate = Static<typeof TagDelegationCreate>

export const TagDelegationUpdate = Type.Object({
  trustee: Type.Optional(TrusteeField),
  priority: Type.Optional(Priority),
})
export type TagDelegationUpdate = Static<typeof TagDelegationUpdate>

export const TagDelegationReorder = Type.Object({
  order: Type.Array(Type.Integer({ minimum: 0, maximum: INT4_MAX }), {
    description: 'every active tag delegation id of yours, once each, in the new order',
  }),
})
export type TagDelegationReorder = Static<typeof TagDelegationReorder>

export const TagDelegationResults = Type.Object({ results: Type.Array(TagDelegation) })

export const TagDelegationsToMe = Type.Object({
  results: Type.Array(Type.Object({ tag: Type.Integer(), tag_info: TagInfo, count: Type.Integer() })),
})
export type TagDelegationsToMe = Static<typeof TagDelegationsToMe>
