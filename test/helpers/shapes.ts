import assert from 'node:assert/strict'

/** Checks of the spec's field lists and types, written from the spec, apart from the service's own schemas. */
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
const URL_PATTERN = /^https?:\/\/[^\s]+$/

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']

export function assertStatistics(item: Record<string, unknown>, prefix: 'direct' | 'liquid') {
  for (const name of ['vote_count', 'skipped', ...LEVELS]) assert.ok(Number.isInteger(item[`${prefix}_${name}`]), `${prefix}_${name}`)
  for (const name of ['value', 'sum', 'heat', 'consensus']) assert.equal(typeof item[`${prefix}_${name}`], 'number', `${prefix}_${name}`)
  const levels = LEVELS.reduce((sum, level) => sum + (item[`${prefix}_${level}`] as number), 0)
  assert.equal(levels, item[`${prefix}_vote_count`], `${prefix} levels add up to the vote count`)
}

export function assertAreaShape(area: any) {
  assert.deepEqual(
    Object.keys(area)
      .filter((k) => k !== 'url')
      .sort(),
    [
      'ID',
      'created_at',
      'id',
      'location',
      'm_type',
      'members_count',
      'modified_at',
      'name',
      'parent',
      'parent_url',
      'politicians',
      'question_count',
      'type_description',
    ].sort(),
  )
  assert.equal(typeof area.ID, 'string')
  assert.equal(area.location.type, 'Point')
  assert.equal(area.location.coordinates.length, 2)
  for (const c of area.location.coordinates) assert.equal(typeof c, 'number')
  assert.ok(area.parent === null || Number.isInteger(area.parent))
  if (area.parent !== null) assert.match(area.parent_url, /\/api\/simple_geos\/\d+\/$/)
  assert.ok(Array.isArray(area.politicians))
  assert.match(area.created_at, TIMESTAMP)
}

export function assertPoliticianShape(p: any) {
  const strings = [
    'name',
    'sort_name',
    'email',
    'social3',
    'social1',
    'group',
    'group_id',
    'area_id',
    'area',
    'chamber',
    'term',
    'start_date',
    'gender',
    'country',
    'type',
    'social4',
    'social1_page',
    'fundraising_page',
    'statement',
  ]
  for (const field of strings) assert.equal(typeof p[field], 'string', `politician.${field}`)
  for (const field of ['ID', 'end_date', 'image', 'cv'])
    assert.ok(field in p && (p[field] === null || typeof p[field] === 'string'), `politician.${field}`)
  assert.ok(Number.isInteger(p.id))
}

const USER_COUNTERS = [
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
]
const FLAGS = [
  'is_email_verified',
  'is_admin_verified',
  'is_social1_verified',
  'is_social2_verified',
  'is_social3_verified',
  'is_social4_verified',
  'is_payment_verified',
]

export function assertFullUserShape(user: any) {
  assert.ok(Number.isInteger(user.id))
  for (const field of ['username', 'first_name', 'last_name', 'bio']) assert.equal(typeof user[field], 'string', field)
  assert.match(user.url, /\/api\/users\/\d+\/$/)
  assert.match(user.photo, URL_PATTERN, 'photo is always a URL')
  assert.ok(user.age === null || Number.isInteger(user.age))
  for (const field of ['latest_compare', 'follow', 'locations']) assert.ok(Array.isArray(user[field]), field)
  for (const location of user.locations) assert.match(location, /\/api\/user_geos\/\d+\/$/)
  for (const field of ['created_at', 'modified_at', 'last_answer_time']) assert.match(user[field], TIMESTAMP, field)
  assert.equal(typeof user.is_deleted, 'boolean')
  for (const field of ['country', 'region', 'politician']) assert.ok(user[field] === null || Number.isInteger(user[field]), field)
  if (user.country !== null) assertAreaShape(user.country_info)
  else assert.equal(user.country_info, null)
  if (user.region !== null) assertAreaShape(user.region_info)
  if (user.politician !== null) assertPoliticianShape(user.politician_info)
  else assert.equal(user.politician_info, null)
  for (const flag of FLAGS) assert.equal(typeof user[flag], 'boolean', flag)
  for (const counter of [...USER_COUNTERS, 'verification_count', 'verification_score', 'karma'])
    assert.ok(Number.isInteger(user[counter]), counter)
}
