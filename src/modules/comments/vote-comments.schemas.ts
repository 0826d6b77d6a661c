import { Type, type Static } from 'typebox'
import { Id, IdFilter, ListQuery, Timestamp, Url } from '../../http/schemas.ts'

/** A comment given as the reason of an answer to a question. */
export const VoteComment = Type.Object({
  id: Type.Integer(),
  url: Url,
  vote: Type.Integer({ description: 'the answer (a question vote)' }),
  comment: Type.Integer({ description: 'a comment on the same question' }),
  question: Type.Integer(),
  user: Type.Integer({ description: 'who answered' }),
  created_at: Timestamp,
})
export type VoteComment = Static<typeof VoteComment>

export const VoteCommentBody = Type.Object({ vote: Id, comment: Id })
export type VoteCommentBody = Static<typeof VoteCommentBody>

export const VoteCommentListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  vote: Type.Optional(IdFilter),
  comment: Type.Optional(IdFilter),
  question: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
})
export type VoteCommentListQuery = Static<typeof VoteCommentListQuery>
