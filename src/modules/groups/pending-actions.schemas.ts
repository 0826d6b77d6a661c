import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery } from '../../http/schemas.ts'

/** The filters of both pending listings (invitations and join requests): by id, group, person and status. */
export const PendingListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  group: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
  status: Type.Optional(Type.String({ maxLength: 20 })),
})
export type PendingListQuery = Static<typeof PendingListQuery>
