import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url, IdList } from '../../http/schemas.ts'
import { INT4_MAX } from '../../core/integers.ts'
import { Area } from '../areas/areas.schemas.ts'
import { Politician } from '../politicians/politicians.schemas.ts'
import { LatestCompare } from '../compare/compare.schemas.ts'

export const VERIFICATION_FLAGS = [
  'is_email_verified',
  'is_admin_verified',
  'is_social1_verified',
  'is_social2_verified',
  'is_social3_verified',
  'is_social4_verified',
  'is_payment_verified',
] as const

export const USER_COUNTERS = [
  'count_questions',
  'count_votes',
  'count_question_votes',
  'count_friends',
  'count_comment_votes',
  'count_choice_votes',
  'count_group_memberships',
  'count_following_tags',
  'count_comments',
  'count_following_users',
  'count_followers',
] as const

const flags = Object.fromEntries(VERIFICATION_FLAGS.map((name) => [name, Type.Boolean()]))
const counters = Object.fromEntries(USER_COUNTERS.map((name) => [name, Type.Integer()]))

/** Fields of the user in every form (spec 2.2); the reduced form of collection items stops here. */
export const reducedUserProperties = {
  id: Type.Integer(),
  username: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  url: Url,
  photo: Type.String({ format: 'uri', description: 'always a URL: a default avatar when the user has none' }),
  age: Nullable(Type.Integer()),
  bio: Type.String(),
  created_at: Timestamp,
  modified_at: Timestamp,
  is_deleted: Type.Boolean(),
  last_answer_time: Timestamp,
  politician: Nullable(Type.Integer()),
  politician_info: Nullable(Politician),
  ...flags,
  verification_count: Type.Integer(),
  verification_score: Type.Integer(),
  ...counters,
  karma: Type.Integer(),
}

/** The user as collections, delegations and other embeddings show them (spec 2.2): the full form without follow links, locations and areas. */
export const ReducedUser = Type.Object(reducedUserProperties)
export type ReducedUser = Static<typeof ReducedUser>

export const FollowLink = Type.Object({ id: Type.Integer(), following: Type.Integer(), created_at: Timestamp })

/** The full user of spec 2.2 (questions, comment votes, users and user_politician). */
export const FullUser = Type.Object({
  ...reducedUserProperties,
  latest_compare: Type.Array(LatestCompare, {
    description: 'the newest comparisons this user made (at most 10), shown to that user only; [] for anyone else',
  }),
  follow: Type.Array(FollowLink, { description: "the caller's following_users link to this user, if any" }),
  locations: Type.Array(Url, { description: 'user-area links (user_geos)' }),
  country: Nullable(Type.Integer()),
  country_info: Nullable(Area),
  region: Nullable(Type.Integer()),
  region_info: Nullable(Area),
})
export type FullUser = Static<typeof FullUser>

export const UserListQuery = ListQuery({
  search: Type.Optional(Type.String({ maxLength: 200 })),
  id: Type.Optional(IdFilter),
  id__in: Type.Optional(IdList()),
  username: Type.Optional(Type.String({ maxLength: 150 })),
  username__iexact: Type.Optional(Type.String({ maxLength: 150 })),
  politician__type: Type.Optional(Type.String({ maxLength: 50 })),
  locations__geo: Type.Optional(IdFilter),
  following: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: INT4_MAX,
      description: 'a user id: the people who follow that user (following_users links to it)',
    }),
  ),
  compare_check: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        '"<user id>,<minimum common questions>,<field>": the people that user (the caller) compared themselves with, ordered by ' +
        'compares__difference_percent, compares__questions_counted or compares__modified_at (- reverses)',
    }),
  ),
})
export type UserListQuery = Static<typeof UserListQuery>
