import { Type, type Static } from 'typebox'
import { Id, IdFilter, ListQuery, Timestamp, Url } from '../../http/schemas.ts'
import { FullUser } from '../users/users.schemas.ts'
import { QueryBoolean } from './comments.schemas.ts'

export const UP = 5
export const DOWN = 1

/** Spec 2.10. */
export const CommentVote = Type.Object({
  id: Type.Integer(),
  url: Url,
  value: Type.Integer({ description: '5 up, 1 down' }),
  user: FullUser,
  private: Type.Boolean({
    description: "listed only to the voter and staff; reaches the comment's tallies with a batch of MIN_CELL_SIZE private changes",
  }),
  active: Type.Boolean({ description: 'false once superseded by a newer vote of the same user on the same comment, or withdrawn' }),
  object_id: Type.Integer({ description: 'the comment voted on' }),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type CommentVote = Static<typeof CommentVote>

/** The answer to a vote: the vote and the comment's tallies after it. */
export const CommentVoteCast = Type.Object({
  ...CommentVote.properties,
  direct_maximum: Type.Integer({ description: "the comment's up votes after this vote, as the comment shows them" }),
  direct_minimum: Type.Integer({ description: "the comment's down votes after this vote, as the comment shows them" }),
})
export type CommentVoteCast = Static<typeof CommentVoteCast>

export const CommentVoteBody = Type.Object({
  object_id: Id,
  value: Type.Integer({ description: '5 up, 1 down' }),
  private: Type.Optional(Type.Boolean()),
})
export type CommentVoteBody = Static<typeof CommentVoteBody>

export const CommentVoteListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  object_id: Type.Optional(IdFilter),
  comment: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
  value: Type.Optional(Type.Integer({ minimum: -32768, maximum: 32767 })),
  active: Type.Optional(QueryBoolean),
})
export type CommentVoteListQuery = Static<typeof CommentVoteListQuery>
