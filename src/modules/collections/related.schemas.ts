import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Timestamp, Url } from '../../http/schemas.ts'
import { TagInfo } from '../tags/tags.schemas.ts'
import { ReducedUser } from '../users/users.schemas.ts'

/** question_collection_users: someone who answered questions of the collection. */
export const CollectionUser = Type.Object({
  id: Type.Integer({ description: 'user id' }),
  user_url: Url,
  user: ReducedUser,
  parent: Type.Integer({ description: 'collection id' }),
  answered_count: Type.Integer({ description: "how many of the collection's questions they answered (skips count)" }),
  answered: Type.Number({ description: "answered_count as a percentage of the collection's question_count" }),
  last_answered_at: Timestamp,
})
export type CollectionUser = Static<typeof CollectionUser>

export const CollectionUserQuery = ListQuery({
  parent: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
})
export type CollectionUserQuery = Static<typeof CollectionUserQuery>

export const CollectionTag = Type.Object({
  id: Type.Integer(),
  url: Url,
  collection: Type.Integer(),
  collection_url: Url,
  tag: Type.Integer(),
  tag_info: TagInfo,
  created_at: Timestamp,
})
export type CollectionTag = Static<typeof CollectionTag>

export const CollectionTagQuery = ListQuery({
  collection: Type.Optional(IdFilter),
  parent: Type.Optional(IdFilter),
  tag: Type.Optional(IdFilter),
})
export type CollectionTagQuery = Static<typeof CollectionTagQuery>

export const CollectionTagCreate = Type.Object({
  collection: Type.Integer({ description: 'one of your collections' }),
  tag: Type.Integer(),
})
export type CollectionTagCreate = Static<typeof CollectionTagCreate>

export const CollectionStats = Type.Object({
  id: Type.Integer({ description: 'the collection id' }),
  url: Url,
  collection: Type.Integer(),
  collection_url: Url,
  question_count: Type.Integer({ description: 'the questions the caller can list; the figures are taken over those' }),
  item_count: Type.Integer({ description: 'the items (questions and breaks) the caller can list' }),
  answerers: Type.Optional(
    Type.Integer({
      description:
        'people who answered at least one of its questions (private answers count once MIN_CELL_SIZE people have one there); ' +
        'left out with answers and completion below MIN_CELL_SIZE',
    }),
  ),
  answers: Type.Optional(Type.Integer({ description: 'questions answered, summed over those people (one per person and question)' })),
  complete_count: Type.Optional(
    Type.Integer({ description: 'people who answered every question; left out when they or the others are 1..MIN_CELL_SIZE-1' }),
  ),
  completion: Type.Optional(Type.Number({ description: 'answers / (answerers × question_count), in percent' })),
})
export type CollectionStats = Static<typeof CollectionStats>

export const CollectionStatsQuery = ListQuery({
  collection: Type.Optional(IdFilter),
  id: Type.Optional(IdFilter),
})
export type CollectionStatsQuery = Static<typeof CollectionStatsQuery>
