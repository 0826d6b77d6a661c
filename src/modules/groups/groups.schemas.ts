import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url, IdList } from '../../http/schemas.ts'
import { MyMembership } from './memberships/memberships.schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'

/** open: anyone joins; request: an administrator accepts a join request; invite: only invited people join. */
export const JOIN_POLICIES = ['open', 'request', 'invite'] as const
export type JoinPolicy = (typeof JOIN_POLICIES)[number]

export const MyJoinRequest = Type.Object({ id: Type.Integer(), status: Type.String(), created_at: Timestamp })

export const Group = Type.Object({
  id: Type.Integer(),
  url: Url,
  name: Type.String(),
  slug: Type.String(),
  description: Type.String(),
  image: Nullable(Type.String()),
  owner: Nullable(Type.Integer({ description: 'user id of the owner' })),
  join_policy: Type.String({ description: 'open, request or invite' }),
  is_private: Type.Boolean({ description: 'true unless anyone may join (join_policy open)' }),
  member_count: Type.Integer(),
  question_count: Type.Integer({ description: 'active questions of the group that are published' }),
  questions_link: Url,
  my_membership: Nullable(MyMembership),
  my_join_request: Nullable(MyJoinRequest),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type Group = Static<typeof Group>

export const GroupListQuery = ListQuery({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  id: Type.Optional(IdFilter),
  id__in: Type.Optional(IdList()),
  slug: Type.Optional(Type.String({ maxLength: 200 })),
  owner: Type.Optional(IdFilter),
  member: Type.Optional(IdFilter),
  join_policy: Type.Optional(Type.String({ maxLength: 20 })),
})
export type GroupListQuery = Static<typeof GroupListQuery>

const fields = {
  name: Type.String({ maxLength: 100 }),
  slug: Type.Optional(Type.String({ maxLength: 100, description: 'made from the name when not given' })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  image: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'absolute http(s) URL' }))),
  join_policy: Type.Optional(Type.String({ maxLength: 20, description: 'open (default), request or invite' })),
  is_private: Type.Optional(Type.Boolean({ description: 'without join_policy: true means request, false means open' })),
}

export const GroupCreate = Type.Object(fields)
export type GroupCreate = Static<typeof GroupCreate>

const Owner = Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'hand the group over to another member' })

/** PUT: the name is required; PATCH: every field is optional. Fields not sent keep their value. */
export const GroupReplace = Type.Object({ ...fields, owner: Type.Optional(Owner) })
export const GroupPatch = Type.Object({ ...fields, name: Type.Optional(fields.name), owner: Type.Optional(Owner) })
export type GroupChanges = Static<typeof GroupPatch>

export const JoinBody = Type.Object({
  default_share_email: Type.Optional(Type.Boolean({ description: "share your e-mail address with the group's administrators" })),
  share_email: Type.Optional(Type.Boolean({ description: 'the same as default_share_email' })),
  message: Type.Optional(Type.String({ maxLength: 1000, description: 'for the administrators, when the group takes join requests' })),
})
export type JoinBody = Static<typeof JoinBody>
