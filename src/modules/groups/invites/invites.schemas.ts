import { Type, type Static } from 'typebox'
import { Nullable, Timestamp, Url } from '../../../http/schemas.ts'
import { UserSummary } from '../../users/user-summaries.ts'
import { INT4_MAX } from '../../../core/integers.ts'

export const INVITE_STATUSES = ['pending', 'accepted', 'declined', 'revoked'] as const
export type InviteStatus = (typeof INVITE_STATUSES)[number]

export const Invite = Type.Object({
  id: Type.Integer(),
  url: Url,
  group: Type.Integer(),
  user: Nullable(Type.Integer({ description: 'the invited user; null for an invitation sent to an e-mail address' })),
  user_info: Nullable(UserSummary),
  email: Nullable(Type.String({ description: 'the address an invitation without a user went to' })),
  invited_by: Nullable(Type.Integer()),
  status: Type.String({ description: 'pending, accepted, declined or revoked' }),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type Invite = Static<typeof Invite>

const Pk = Type.Integer({ minimum: 0, maximum: INT4_MAX })
export const InviteCreate = Type.Object({ group: Pk, user: Pk })
export type InviteCreate = Static<typeof InviteCreate>
