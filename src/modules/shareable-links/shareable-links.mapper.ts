import type { Static } from 'typebox'
import { iso, isoOrNull } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { LinkRow } from './shareable-links.repository.ts'
import type { ShareableLink } from './shareable-links.schemas.ts'

export function toShareableLink(row: LinkRow, urls: UrlBuilder): Static<typeof ShareableLink> {
  return {
    id: row.id,
    url: urls.detail('create_shareable_link', row.id),
    token: row.code,
    share_url: urls.path(`/shared/${row.code}/`),
    question: row.question_id === null ? null : urls.detail('questions', row.question_id),
    collection: row.collection_id === null ? null : urls.detail('question_collections', row.collection_id),
    expires_at: iso(row.expires_at),
    revoked: row.revoked_at !== null,
    revoked_at: isoOrNull(row.revoked_at),
    created_at: iso(row.created_at),
  }
}
