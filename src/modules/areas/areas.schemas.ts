import { Type, type Static } from 'typebox'
import { GeoPoint, IdFilter, ListQuery, Nullable, Timestamp, Url, IdList } from '../../http/schemas.ts'

/** Spec 2.3: the area object (country_info, region_info, geo_info and the geos listing). */
export const Area = Type.Object({
  id: Type.Integer(),
  url: Url,
  ID: Type.String({ description: 'area code' }),
  name: Type.String(),
  m_type: Type.String(),
  location: GeoPoint,
  members_count: Type.Integer(),
  question_count: Type.Integer(),
  created_at: Timestamp,
  modified_at: Timestamp,
  type_description: Nullable(Type.String()),
  parent: Nullable(Type.Integer()),
  parent_url: Nullable(Url),
  politicians: Type.Array(Type.Integer(), { description: 'ids of the politicians of this area' }),
})
export type Area = Static<typeof Area>

/** The light form served by simple_geos (what parent_url points at). */
export const SimpleArea = Type.Object({
  id: Type.Integer(),
  url: Url,
  ID: Type.String(),
  name: Type.String(),
  m_type: Type.String(),
  parent: Nullable(Type.Integer()),
  parent_url: Nullable(Url),
})
export type SimpleArea = Static<typeof SimpleArea>

export const AreaListQuery = ListQuery({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  m_type: Type.Optional(Type.String({ maxLength: 50 })),
  parent: Type.Optional(IdFilter),
  ID: Type.Optional(Type.String({ maxLength: 50 })),
  id__in: Type.Optional(IdList()),
})
