import { Type } from 'typebox'
import { ListQuery, Nullable, Timestamp, Url } from '../../http/schemas.ts'
import { UserSummary } from '../users/user-summaries.ts'
import { ACTIVITY_KINDS, REASONS } from './activity.repository.ts'

const KIND_LIST = `^(${ACTIVITY_KINDS.join('|')})(,(${ACTIVITY_KINDS.join('|')}))*$`

export const ActivityQuery = ListQuery({
  kind: Type.Optional(Type.String({ maxLength: 100, pattern: KIND_LIST, description: 'comma-separated: question, answer, comment' })),
  since: Type.Optional(Type.String({ maxLength: 40, description: 'only what happened at or after this ISO 8601 time' })),
})

const Named = (name: string) => Nullable(Type.Object({ id: Type.Integer(), url: Url, [name]: Type.String() }))

export const ActivityItem = Type.Object({
  kind: Type.Enum([...ACTIVITY_KINDS], { description: 'a new question, a public answer, or a comment on your question' }),
  id: Type.Integer({ description: "the question's, answer's or comment's id" }),
  created_at: Timestamp,
  reason: Type.Enum([...REASONS], { description: 'why it is in your feed' }),
  actor: UserSummary,
  question: Type.Object({ id: Type.Integer(), url: Url, question: Type.String() }),
  value: Nullable(Type.Integer({ description: 'a likert answer: 1 to 5' })),
  choice: Nullable(Type.Integer({ description: "a choice answer: the choice's id" })),
  comment: Nullable(Type.Object({ id: Type.Integer(), url: Url, text: Type.String() })),
  tag: Named('text'),
  group: Named('name'),
})
