import { Type, type Static } from 'typebox'
import { Id, IdFilter, ListQuery, Timestamp, Url } from '../../../http/schemas.ts'

/** A user's 1..5 rating of a link or of a connection between questions; one per user and object. */
export const DirectVote = Type.Object({
  id: Type.Integer(),
  url: Url,
  object_id: Type.Integer({ description: 'the rated link or connection' }),
  value: Type.Integer({ minimum: 1, maximum: 5 }),
  user: Type.Integer(),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type DirectVote = Static<typeof DirectVote>

export const DirectVoteListQuery = ListQuery({
  object_id: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
  id: Type.Optional(IdFilter),
})
export type DirectVoteListQuery = Static<typeof DirectVoteListQuery>

export const DirectVoteBody = Type.Object({ object_id: Id, value: Type.Integer({ minimum: 1, maximum: 5 }) })
export type DirectVoteBody = Static<typeof DirectVoteBody>
