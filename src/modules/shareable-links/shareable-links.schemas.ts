import { Type } from 'typebox'
import { Nullable, Timestamp, Url } from '../../http/schemas.ts'
import { CollectionFull } from '../collections/collections.schemas.ts'
import { Question } from '../questions/questions.schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'

export const MAX_LINK_DAYS = 365
export const DEFAULT_LINK_DAYS = 30

export const LinkCreate = Type.Object({
  question: Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX, description: 'the question whose results it opens' })),
  collection: Type.Optional(Type.Integer({ minimum: 0, maximum: INT4_MAX, description: 'or the collection whose results it opens' })),
  expires_in_days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_LINK_DAYS, description: `days until it stops working, ${DEFAULT_LINK_DAYS} by default` }),
  ),
})

export const ShareableLink = Type.Object({
  id: Type.Integer(),
  url: Url,
  token: Type.String({ description: 'signed: the link id, its expiry and a signature' }),
  share_url: Url,
  question: Nullable(Url),
  collection: Nullable(Url),
  expires_at: Timestamp,
  revoked: Type.Boolean(),
  revoked_at: Nullable(Timestamp),
  created_at: Timestamp,
})

export const SharedResults = Type.Object({
  kind: Type.Enum(['question', 'collection']),
  expires_at: Timestamp,
  question: Nullable(Question),
  collection: Nullable(CollectionFull),
  questions: Type.Array(Question, {
    description: "the collection's questions with their figures, in its order; the question alone otherwise",
  }),
})

export const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) })
