import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Timestamp, Url, IdList } from '../../http/schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'

export const FollowingUser = Type.Object({
  id: Type.Integer(),
  url: Url,
  user: Type.Integer({ description: 'the follower' }),
  following: Type.Integer({ description: 'the user followed' }),
  created_at: Timestamp,
})
export type FollowingUser = Static<typeof FollowingUser>

export const FollowingUserListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
  following: Type.Optional(IdFilter),
  following__id__in: Type.Optional(IdList('comma-separated user ids')),
})
export type FollowingUserListQuery = Static<typeof FollowingUserListQuery>

export const FollowingUserCreate = Type.Object({ following: Type.Integer({ minimum: 0, maximum: INT4_MAX }) })
export type FollowingUserCreate = Static<typeof FollowingUserCreate>
