import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../http/schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'
import { UserSummary } from '../users/user-summaries.ts'

/** One friendship: `user` asked, `friend` was asked; pending until the friend accepts. */
export const Friendship = Type.Object({
  id: Type.Integer(),
  url: Url,
  user: Nullable(UserSummary),
  friend: Nullable(UserSummary),
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted')], {
    description: 'pending: asked, not yet accepted; accepted: friends',
  }),
  created_at: Timestamp,
  accepted_at: Nullable(Timestamp),
})
export type Friendship = Static<typeof Friendship>

export const FriendshipListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  user: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: INT4_MAX,
      description: "whose friends: anyone's accepted friendships; yours (the default) include pending requests",
    }),
  ),
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('accepted')], { description: 'pending or accepted' })),
  direction: Type.Optional(
    Type.Union([Type.Literal('incoming'), Type.Literal('outgoing')], {
      description: 'incoming: asked by the other person; outgoing: asked by `user` (you by default)',
    }),
  ),
})
export type FriendshipListQuery = Static<typeof FriendshipListQuery>

export const FriendshipCreate = Type.Object({
  friend: Type.Integer({ minimum: 0, maximum: INT4_MAX, description: 'the user asked to be your friend' }),
})
export type FriendshipCreate = Static<typeof FriendshipCreate>
