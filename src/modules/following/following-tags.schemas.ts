import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Timestamp, Url } from '../../http/schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'

export const FollowingTag = Type.Object({
  id: Type.Integer(),
  url: Url,
  user: Type.Integer({ description: 'the follower' }),
  tag: Type.Integer({ description: 'the tag followed' }),
  created_at: Timestamp,
})
export type FollowingTag = Static<typeof FollowingTag>

export const FollowingTagListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
  tag: Type.Optional(IdFilter),
})
export type FollowingTagListQuery = Static<typeof FollowingTagListQuery>

export const FollowingTagCreate = Type.Object({ tag: Type.Integer({ minimum: 0, maximum: INT4_MAX }) })
export type FollowingTagCreate = Static<typeof FollowingTagCreate>
