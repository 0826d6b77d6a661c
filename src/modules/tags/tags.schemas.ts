import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../http/schemas.ts'

/** The tag object embedded in questions (spec 2.5). */
export const TagInfo = Type.Object({
  id: Type.Integer(),
  text: Type.String(),
  followers_count: Type.Integer(),
  questions_count: Type.Integer(),
  votes_count: Type.Integer({
    description: 'likert answers to the questions it carries (skips included); private ones once it holds MIN_CELL_SIZE of them',
  }),
})
export type TagInfo = Static<typeof TagInfo>

/** The tags resource: the tag object plus what the clients read (image, following). */
export const Tag = Type.Object({
  ...TagInfo.properties,
  url: Url,
  slug: Type.String(),
  image: Nullable(Type.String()),
  following: Type.Boolean({ description: 'whether the caller follows this tag' }),
  created_at: Timestamp,
  modified_at: Timestamp,
})
export type Tag = Static<typeof Tag>

export const TagListQuery = ListQuery({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  id: Type.Optional(IdFilter),
  text: Type.Optional(Type.String({ maxLength: 200 })),
})
export type TagListQuery = Static<typeof TagListQuery>
