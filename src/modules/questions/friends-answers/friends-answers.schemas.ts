import { Type, type Static } from 'typebox'
import { ListQuery, Nullable, Timestamp } from '../../../http/schemas.ts'
import { ReducedUser } from '../../users/users.schemas.ts'

/** A friend's public answer to one question: likert (object_id is the question) or a choice (object_id is the choice). */
export const FriendAnswer = Type.Object({
  id: Type.Integer({ description: 'the id of the answer in question_votes or question_choice_votes' }),
  kind: Type.Union([Type.Literal('likert'), Type.Literal('choice')]),
  object_id: Type.Integer({ description: 'question id for likert answers, choice id for choice answers' }),
  value: Nullable(Type.Integer({ minimum: 1, maximum: 5 })),
  skipped: Type.Boolean(),
  user: ReducedUser,
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type FriendAnswer = Static<typeof FriendAnswer>

export const FriendAnswersQuery = ListQuery({})
