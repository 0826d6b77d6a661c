import { Type, type Static } from 'typebox'
import { Nullable, Timestamp, Url } from '../../../http/schemas.ts'
import { UserSummary } from '../../users/user-summaries.ts'
import { INT4_MAX } from '../../../core/integers.ts'

export const JOIN_REQUEST_STATUSES = ['pending', 'accepted', 'declined', 'withdrawn'] as const
export type JoinRequestStatus = (typeof JOIN_REQUEST_STATUSES)[number]

export const JoinRequest = Type.Object({
  id: Type.Integer(),
  url: Url,
  group: Type.Integer(),
  user: Type.Integer(),
  user_info: Nullable(UserSummary),
  message: Type.String(),
  status: Type.String({ description: 'pending, accepted, declined or withdrawn' }),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type JoinRequest = Static<typeof JoinRequest>

export const JoinRequestCreate = Type.Object({
  group: Type.Integer({ minimum: 0, maximum: INT4_MAX }),
  message: Type.Optional(Type.String({ maxLength: 1000 })),
})
export type JoinRequestCreate = Static<typeof JoinRequestCreate>
