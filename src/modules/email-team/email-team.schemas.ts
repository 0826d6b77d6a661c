import { Type, type Static } from 'typebox'
import { Nullable, Timestamp } from '../../http/schemas.ts'
import { Email } from '../accounts/accounts.schemas.ts'

export const TeamMessageCreate = Type.Object({
  subject: Type.Optional(Type.String({ maxLength: 200, description: 'one line; "Message from <email>" when left out' })),
  body: Type.String({ maxLength: 10000, description: 'the message, up to 10,000 characters' }),
  email: Type.Optional({ ...Email, description: 'where the team replies; required without an account e-mail address' }),
})
export type TeamMessageCreate = Static<typeof TeamMessageCreate>

export const TeamMessage = Type.Object({
  id: Type.Integer(),
  user: Nullable(Type.Integer({ description: 'the account that sent it, when signed in' })),
  email: Type.String(),
  subject: Type.String(),
  body: Type.String(),
  created_at: Timestamp,
  sent_at: Nullable(Timestamp),
})
export type TeamMessage = Static<typeof TeamMessage>
