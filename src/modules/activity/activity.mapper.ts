import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { photoUrl } from '../users/users.mapper.ts'
import type { UserRow } from '../users/users.repository.ts'
import type { ActivityRow } from './activity.repository.ts'

/** One feed item: its actor in summary, the question it concerns, and the tag or group that brought it. */
export function toActivityItem(row: ActivityRow, urls: UrlBuilder, defaultAvatar: string | null) {
  return {
    kind: row.kind,
    id: row.id,
    created_at: iso(row.created_at),
    reason: row.reason,
    actor: {
      id: row.actor_id,
      username: row.actor_username,
      first_name: row.actor_first_name,
      last_name: row.actor_last_name,
      photo: photoUrl({ photo: row.actor_photo } as UserRow, urls, defaultAvatar),
    },
    question: { id: row.question_id, url: urls.detail('questions', row.question_id), question: row.question_text },
    value: row.value,
    choice: row.choice_id,
    comment: row.kind === 'comment' ? { id: row.id, url: urls.detail('comments', row.id), text: row.comment_text ?? '' } : null,
    tag: row.tag_id === null ? null : { id: row.tag_id, url: urls.detail('tags', row.tag_id), text: row.tag_text ?? '' },
    group: row.group_id === null ? null : { id: row.group_id, url: urls.detail('groups', row.group_id), name: row.group_name ?? '' },
  }
}
