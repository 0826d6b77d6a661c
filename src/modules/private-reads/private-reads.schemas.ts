import { Type } from 'typebox'
import { INT4_MAX } from '../../core/integers.ts'
import { ListQuery, Timestamp } from '../../http/schemas.ts'

const Ids = (description: string) => Type.Array(Type.Integer(), { description })

export const PrivateRead = Type.Object({
  id: Type.Integer(),
  staff: Type.Integer({ description: 'the staff member who read them' }),
  read_at: Timestamp,
  method: Type.String(),
  path: Type.String({ description: 'the URL read, query string included (keys and tokens blanked)' }),
  question_votes: Ids('ids of the private likert answers (question_votes) the response showed'),
  choice_votes: Ids('ids of the private choice answers (question_choice_votes) the response showed'),
  authors: Ids('whose private answers or tag votes they were'),
})

const Filter = (description: string) => Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX, description }))

export const PrivateReadListQuery = ListQuery({
  staff: Filter('staff member id'),
  author: Filter('reads that showed this user’s private votes'),
})
