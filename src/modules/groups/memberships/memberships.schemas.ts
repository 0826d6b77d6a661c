import { Type, type Static } from 'typebox'
import { IdFilter, ListQuery, Nullable, Timestamp, Url } from '../../../http/schemas.ts'
import { UserSummary } from '../../users/user-summaries.ts'

export const ROLES = ['member', 'admin'] as const
export type Role = (typeof ROLES)[number]

export const Membership = Type.Object({
  id: Type.Integer(),
  url: Url,
  group: Type.Integer(),
  user: Type.Integer(),
  user_info: Nullable(UserSummary),
  role: Type.String({ description: 'member or admin' }),
  share_email: Type.Boolean({ description: "whether the member shares their e-mail address with the group's administrators" }),
  email: Nullable(Type.String({ description: "the member's address, shown to the group's administrators and the member when shared" })),
  created_at: Timestamp,
})
export type Membership = Static<typeof Membership>

/** The caller's own membership as a group shows it: present (truthy) only for members. */
export const MyMembership = Type.Object({ id: Type.Integer(), role: Type.String(), share_email: Type.Boolean(), created_at: Timestamp })
export type MyMembership = Static<typeof MyMembership>

export const MembershipListQuery = ListQuery({
  id: Type.Optional(IdFilter),
  group: Type.Optional(IdFilter),
  user: Type.Optional(IdFilter),
  role: Type.Optional(Type.String({ maxLength: 20 })),
})
export type MembershipListQuery = Static<typeof MembershipListQuery>

export const MembershipPatch = Type.Object({
  role: Type.Optional(Type.String({ maxLength: 20, description: "member or admin; the group's administrators change it" })),
  share_email: Type.Optional(Type.Boolean({ description: 'the member changes it' })),
})
export type MembershipPatch = Static<typeof MembershipPatch>
