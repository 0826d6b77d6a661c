import { iso } from '../../core/time.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import type { Area } from '../areas/areas.schemas.ts'
import type { LatestCompare } from '../compare/compare.schemas.ts'
import { toPolitician, type PoliticianRow } from '../politicians/politicians.repository.ts'
import type { UserRow } from './users.repository.ts'
import { USER_COUNTERS, VERIFICATION_FLAGS, type FullUser, type ReducedUser } from './users.schemas.ts'

/** How much each verification is worth: an admin's check counts most, a payment more than an e-mail. */
const VERIFICATION_WEIGHTS: Record<(typeof VERIFICATION_FLAGS)[number] | 'is_phone_verified', number> = {
  is_email_verified: 1,
  is_phone_verified: 2,
  is_social1_verified: 1,
  is_social2_verified: 1,
  is_social3_verified: 1,
  is_social4_verified: 1,
  is_payment_verified: 3,
  is_admin_verified: 5,
}

export function verificationOf(row: UserRow): { verification_count: number; verification_score: number } {
  let count = 0
  let score = 0
  for (const [flag, weight] of Object.entries(VERIFICATION_WEIGHTS)) {
    if (row[flag as keyof UserRow]) {
      count += 1
      score += weight
    }
  }
  return { verification_count: count, verification_score: score }
}

export function ageOn(dob: string | null, today: Date): number | null {
  if (!dob) return null
  const [year, month, day] = dob.split('-').map(Number)
  let age = today.getUTCFullYear() - year
  const beforeBirthday = today.getUTCMonth() + 1 < month || (today.getUTCMonth() + 1 === month && today.getUTCDate() < day)
  if (beforeBirthday) age -= 1
  return age
}

export function photoUrl(row: UserRow, urls: UrlBuilder, defaultAvatar: string | null): string {
  if (row.photo) return /^https?:\/\//.test(row.photo) ? row.photo : urls.path(row.photo.startsWith('/') ? row.photo : `/${row.photo}`)
  return defaultAvatar ?? urls.path('/static/default-avatar.svg')
}

export interface UserRelations {
  politician: PoliticianRow | undefined
  country: Area | undefined
  region: Area | undefined
  locationIds: number[]
  follow: { id: number; following_id: number; created_at: Date }[]
  /** The user's newest comparisons: loaded for the caller's own row only. */
  latestCompare?: LatestCompare[]
}

/** The answer and comment vote counters and time anyone may see: over public ones only (docs/privacy.md). */
function publicAnswerCounters(row: UserRow): UserRow {
  return {
    ...row,
    count_votes: row.public_count_votes,
    count_question_votes: row.public_count_question_votes,
    count_choice_votes: row.public_count_choice_votes,
    count_comment_votes: row.public_count_comment_votes,
    last_answer_time: row.public_last_answer_time,
  }
}

/**
 * `full`: the viewer is the user or staff, who see the counters and time of every answer; anyone else sees
 * those of public answers only, so a private answer moves nothing they can read.
 */
export function toFullUser(
  stored: UserRow,
  related: UserRelations,
  urls: UrlBuilder,
  defaultAvatar: string | null,
  full: boolean,
  today = new Date(),
): FullUser {
  const row = full ? stored : publicAnswerCounters(stored)
  const counters = Object.fromEntries(USER_COUNTERS.map((name) => [name, row[name]])) as Record<(typeof USER_COUNTERS)[number], number>
  const flags = Object.fromEntries(VERIFICATION_FLAGS.map((name) => [name, row[name]])) as Record<
    (typeof VERIFICATION_FLAGS)[number],
    boolean
  >
  return {
    id: row.id,
    username: row.username,
    first_name: row.first_name,
    last_name: row.last_name,
    url: urls.detail('users', row.id),
    photo: photoUrl(row, urls, defaultAvatar),
    age: row.is_deleted ? null : ageOn(row.dob, today),
    latest_compare: related.latestCompare ?? [],
    follow: related.follow.map((link) => ({ id: link.id, following: link.following_id, created_at: iso(link.created_at) })),
    locations: related.locationIds.map((id) => urls.detail('user_geos', id)),
    bio: row.bio,
    created_at: iso(row.created_at),
    modified_at: iso(row.modified_at),
    is_deleted: row.is_deleted,
    country: row.country_id,
    country_info: related.country ?? null,
    region: row.region_id,
    region_info: related.region ?? null,
    // Someone who never answered reports the time they joined.
    last_answer_time: iso(row.last_answer_time ?? row.created_at),
    politician: row.politician_id,
    politician_info: related.politician ? toPolitician(related.politician) : null,
    ...flags,
    ...verificationOf(row),
    ...counters,
    karma: row.karma,
  }
}

export function toReducedUser(user: FullUser): ReducedUser {
  const { latest_compare, follow, locations, country, country_info, region, region_info, ...reduced } = user
  void [latest_compare, follow, locations, country, country_info, region, region_info]
  return reduced
}
