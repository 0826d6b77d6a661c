import { Type, type Static } from 'typebox'
import { Nullable, Timestamp } from '../../http/schemas.ts'
import { ReducedUser } from '../users/users.schemas.ts'

export const Outcome = Type.Union([
  Type.Literal('own_answer'),
  Type.Literal('represented'),
  Type.Literal('private_answer'),
  Type.Literal('loop'),
  Type.Literal('blocked'),
  Type.Literal('dead_end'),
  Type.Literal('no_delegation'),
])
export type Outcome = Static<typeof Outcome>

export const WinningDelegation = Type.Object({
  kind: Type.Union([Type.Literal('question'), Type.Literal('tag')]),
  id: Type.Integer({ description: 'the id in question_delegation or tag_delegations' }),
  tag: Nullable(Type.Integer({ description: 'the tag of a tag delegation' })),
  trustee: Nullable(Type.Integer({ description: 'null: a block' })),
})
export type WinningDelegation = Static<typeof WinningDelegation>

export const RepresentativeAnswer = Type.Object({
  value: Nullable(Type.Integer({ minimum: 1, maximum: 5 })),
  object_id: Type.Integer({ description: 'the question for a likert answer, the choice for a multiple-choice one' }),
  skipped: Type.Boolean(),
  modified_at: Timestamp,
})
export type RepresentativeAnswer = Static<typeof RepresentativeAnswer>

export const Representation = Type.Object({
  question: Type.Integer(),
  outcome: Outcome,
  delegation: Nullable(WinningDelegation),
  chain: Type.Array(ReducedUser, { description: 'the trustees followed, in order' }),
  representative: Nullable(ReducedUser),
  representative_answer: Nullable(RepresentativeAnswer),
})
export type Representation = Static<typeof Representation>
