import { iso, isoOrNull } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { Area } from '../areas/areas.schemas.ts'
import type { CollectionRow } from './collections.repository.ts'

export interface CollectionRelations {
  username: string
  geo: Area | undefined
  answered: { answered: number; questions: number } | undefined
}

/** Percentage with two decimals; a collection without questions is 0 % answered. */
export function percentage(part: number, whole: number): number {
  return whole > 0 ? Math.round((10000 * part) / whole) / 100 : 0
}

/** The fields both forms share (spec 2.9); the routes add the user in the form they serve. */
export function collectionFields(row: CollectionRow, related: CollectionRelations, urls: UrlBuilder) {
  return {
    id: row.id,
    url: urls.detail('question_collections', row.id),
    user_url: urls.detail('users', row.user_id),
    username: related.username,
    name: row.name,
    desc: row.desc,
    end_text: row.end_text,
    photo: row.photo,
    questions_link: urls.path(`/api/questions/?in_collections__parent=${row.id}`),
    question_count: row.question_count,
    item_count: row.item_count,
    expire_at: isoOrNull(row.expire_at),
    geo: row.geo_id,
    geo_url: row.geo_id === null ? null : urls.detail('geos', row.geo_id),
    geo_info: related.geo ?? null,
    answered: related.answered ? percentage(related.answered.answered, related.answered.questions) : 0,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}
