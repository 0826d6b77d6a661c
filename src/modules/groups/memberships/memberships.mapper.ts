import { iso } from '../../../core/time.ts'
import type { UrlBuilder } from '../../../core/urls.ts'
import type { UserSummary } from '../../users/user-summaries.ts'
import type { MembershipRow } from './memberships.repository.ts'
import type { Membership, MyMembership } from './memberships.schemas.ts'

export function toMembership(row: MembershipRow, user: UserSummary | null, email: string | null, urls: UrlBuilder): Membership {
  return {
    id: row.id,
    url: urls.detail('group_memberships', row.id),
    group: row.group_id,
    user: row.user_id,
    user_info: user,
    role: row.role,
    share_email: row.share_email,
    email,
    created_at: iso(row.created_at),
  }
}

export function toMyMembership(row: MembershipRow): MyMembership {
  return { id: row.id, role: row.role, share_email: row.share_email, created_at: iso(row.created_at) }
}

/** A member's address is for the group's administrators (and the member), and only when the member shares it. */
export function visibleEmail(
  row: MembershipRow,
  email: string | null,
  viewer: { id: number | null; isStaff: boolean; administers: boolean },
): string | null {
  if (!row.share_email || email === null) return null
  return viewer.isStaff || viewer.administers || viewer.id === row.user_id ? email : null
}
