import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { Area, SimpleArea } from './areas.schemas.ts'
import type { AreaRow } from './areas.repository.ts'

export function toSimpleArea(row: AreaRow, urls: UrlBuilder): SimpleArea {
  return {
    id: row.id,
    url: urls.detail('simple_geos', row.id),
    ID: row.code,
    name: row.name,
    m_type: row.m_type,
    parent: row.parent_id,
    parent_url: row.parent_id === null ? null : urls.detail('simple_geos', row.parent_id),
  }
}

export function toArea(row: AreaRow, politicianIds: number[], urls: UrlBuilder): Area {
  return {
    id: row.id,
    url: urls.detail('geos', row.id),
    ID: row.code,
    name: row.name,
    m_type: row.m_type,
    location: { type: 'Point', coordinates: [row.longitude, row.latitude] },
    members_count: row.members_count,
    question_count: row.question_count,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    type_description: row.type_description,
    parent: row.parent_id,
    parent_url: row.parent_id === null ? null : urls.detail('simple_geos', row.parent_id),
    politicians: politicianIds,
  }
}
