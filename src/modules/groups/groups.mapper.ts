import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { GroupRow } from './groups.repository.ts'
import type { Group } from './groups.schemas.ts'
import { toMyMembership } from './memberships/memberships.mapper.ts'
import type { MembershipRow } from './memberships/memberships.repository.ts'

export interface GroupRelations {
  questionCount: number
  myMembership: MembershipRow | undefined
  myJoinRequest: { id: number; status: string; created_at: Date } | undefined
}

export function toGroup(row: GroupRow, related: GroupRelations, urls: UrlBuilder): Group {
  return {
    id: row.id,
    url: urls.detail('groups', row.id),
    name: row.name,
    slug: row.slug,
    description: row.description,
    image: row.image,
    owner: row.owner_id,
    join_policy: row.join_policy,
    is_private: row.join_policy !== 'open',
    member_count: row.member_count,
    question_count: related.questionCount,
    questions_link: urls.path(`/api/questions/?group=${row.id}`),
    my_membership: related.myMembership ? toMyMembership(related.myMembership) : null,
    my_join_request: related.myJoinRequest
      ? { id: related.myJoinRequest.id, status: related.myJoinRequest.status, created_at: iso(related.myJoinRequest.created_at) }
      : null,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}
