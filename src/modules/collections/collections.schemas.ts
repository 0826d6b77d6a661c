import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url, IdList, RelatedId } from '../../http/schemas.ts'
import { Area } from '../areas/areas.schemas.ts'
import { TagInfo } from '../tags/tags.schemas.ts'
import { FullUser, ReducedUser } from '../users/users.schemas.ts'

const fields = {
  id: Type.Integer(),
  url: Url,
  user_url: Url,
  username: Type.String({ description: "the owner's username" }),
  name: Type.String(),
  desc: Nullable(Type.String()),
  end_text: Nullable(Type.String()),
  photo: Nullable(Type.String()),
  questions_link: Url,
  question_count: Type.Integer({
    description: "the collection's questions the caller can list (others' drafts are neither listed nor counted)",
  }),
  item_count: Type.Integer({ description: 'the items (questions and breaks) the caller can list' }),
  expire_at: Nullable(Timestamp),
  geo: Nullable(Type.Integer()),
  geo_url: Nullable(Url),
  geo_info: Nullable(Area),
  answered: Type.Number({ description: 'percentage of the questions the caller lists that they answered (skips count); 0 anonymously' }),
  created_at: Timestamp,
  modified_at: Timestamp,
}

/** Spec 2.9, with the reduced user of collection items. */
export const Collection = Type.Object({ ...fields, user: ReducedUser })
export type Collection = Static<typeof Collection>

/** question_collections_full: the full user, the tags and where the collection was copied from. */
export const CollectionFull = Type.Object({
  ...fields,
  user: FullUser,
  tags: Type.Array(TagInfo, { description: 'the tags of the collection, oldest first' }),
  copied_from: Nullable(Type.Integer({ description: 'the collection this one was copied from, while it exists' })),
  copied_from_url: Nullable(Url),
})
export type CollectionFull = Static<typeof CollectionFull>

export const CollectionListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  id__in: Type.Optional(IdList()),
  search: Type.Optional(Type.String({ maxLength: 200, description: 'every term matches the name or the description' })),
  user: Type.Optional(IdFilter),
  user__username: Type.Optional(Type.String({ maxLength: 150 })),
  copied_from: Type.Optional(IdFilter),
})
export type CollectionListQuery = Static<typeof CollectionListQuery>

const TEXT = 10000
const editable = {
  name: Type.String({ maxLength: 200 }),
  desc: Type.Optional(Nullable(Type.String({ maxLength: TEXT }))),
  end_text: Type.Optional(Nullable(Type.String({ maxLength: TEXT }))),
  photo: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'absolute http(s) URL' }))),
  geo: Type.Optional(Nullable(RelatedId('area id'))),
  expire_at: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'ISO 8601 timestamp' }))),
}

/** POST and PUT: the name is required; PATCH: every field is optional. Fields not sent keep their value. */
export const CollectionCreate = Type.Object(editable)
export const CollectionPatch = Type.Object({ ...editable, name: Type.Optional(editable.name) })
export type CollectionChanges = Static<typeof CollectionPatch>
