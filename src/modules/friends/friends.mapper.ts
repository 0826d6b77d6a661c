import { iso, isoOrNull } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { loadUserSummaries, summaryOf } from '../users/user-summaries.ts'
import type { FriendshipRow } from './friends.repository.ts'
import type { Friendship } from './friends.schemas.ts'
import type { ViewContext } from '../../core/view-context.ts'

/** Friendships as the API shows them, both people's summaries read in one statement for the lot. */
export async function toFriendships(context: ViewContext, rows: FriendshipRow[]): Promise<Friendship[]> {
  const people = await loadUserSummaries(
    context,
    rows.flatMap((row) => [row.user_id, row.friend_id]),
  )
  return rows.map((row) => ({
    id: row.id,
    url: friendshipUrl(context.urls, row.id),
    user: summaryOf(people.get(row.user_id)),
    friend: summaryOf(people.get(row.friend_id)),
    status: row.accepted_at === null ? 'pending' : 'accepted',
    created_at: iso(row.created_at),
    accepted_at: isoOrNull(row.accepted_at),
  }))
}

export const friendshipUrl = (urls: UrlBuilder, id: number) => urls.detail('friends', id)
