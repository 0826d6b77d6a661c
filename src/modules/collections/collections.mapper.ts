import { iso, isoOrNull } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { Area } from '../areas/areas.schemas.ts'
import type { ListedCollection } from './listed-counts.ts'

export interface CollectionRelations {
  username: string
  geo: Area | undefined
  /** How many of the questions the caller lists they answered (undefined: none, or anonymous). */
  answered: number | undefined
}

/** Percentage with two decimals; a collection without questions is 0 % answered. */
export function percentage(part: number, whole: number): number {
  return whole > 0 ? Math.round((10000 * part) / whole) / 100 : 0
}

/**
 * The fields both forms share (spec 2.9); the routes add the user in the form they serve. The counts and the
 * progress are the caller's: measured on the items they list (listed-counts.ts).
 */
export function collectionFields(row: ListedCollection, related: CollectionRelations, urls: UrlBuilder) {
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
    question_count: row.listed_questions,
    item_count: row.listed_items,
    expire_at: isoOrNull(row.expire_at),
    geo: row.geo_id,
    geo_url: row.geo_id === null ? null : urls.detail('geos', row.geo_id),
    geo_info: related.geo ?? null,
    answered: percentage(related.answered ?? 0, row.listed_questions),
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
  }
}
