import { insertRows } from './bulk.ts'
import { ACTIVITY_END, BASE_TIME, DAY, loadOptions, REFERENCE_DATE, type AreaIds, type SeedContext, type UserPool } from './context.ts'
import { ukAgeShape } from './census.ts'
import { BIO_PHRASES, FEMALE_NAMES, MALE_NAMES, NEUTRAL_NAMES, OTHER_COUNTRY_CODES, SURNAMES } from './data/names.ts'
import { UK_REGIONS } from './data/uk-regions.ts'
import { AliasTable, type Random } from './random.ts'
import { seedPoliticians } from './politicians.ts'

const USER_SPEC = {
  id: 'int',
  username: 'text',
  email: 'text',
  password_hash: 'text',
  first_name: 'text',
  last_name: 'text',
  bio: 'text',
  photo: 'text',
  dob: 'date',
  gender: 'int',
  address: 'text',
  longitude: 'float',
  latitude: 'float',
  district_id: 'int',
  country_id: 'int',
  region_id: 'int',
  politician_id: 'int',
  default_private: 'bool',
  is_staff: 'bool',
  is_email_verified: 'bool',
  is_admin_verified: 'bool',
  is_social1_verified: 'bool',
  is_social3_verified: 'bool',
  is_phone_verified: 'bool',
  phone: 'text',
  agreed_terms: 'bool',
  karma: 'int',
  last_login: 'time',
  created_at: 'time',
  modified_at: 'time',
} as const

const USER_GEO_SPEC = { id: 'int', user_id: 'int', area_id: 'int', created_at: 'time' } as const

export interface Person {
  first: string
  last: string
  /** 0 rather not say, 1 male, 2 female, 3 other. */
  gender: number
  region: number
}

function personName(rng: Random): Pick<Person, 'first' | 'last' | 'gender'> {
  const gender = rng.weighted<number>([
    [1, 47],
    [2, 48],
    [3, 1],
    [0, 4],
  ])
  const names =
    gender === 1 ? MALE_NAMES : gender === 2 ? FEMALE_NAMES : gender === 3 ? NEUTRAL_NAMES : rng.pick([MALE_NAMES, FEMALE_NAMES])
  return { first: rng.pick(names), last: rng.pick(SURNAMES), gender }
}

function plain(text: string): string {
  return text.replace(/[^A-Za-z0-9]/g, '')
}

/** A username unique case-insensitively: a few common shapes, then a number when taken. */
function username(rng: Random, first: string, last: string, taken: Set<string>): string {
  const f = plain(first)
  const l = plain(last)
  const shapes = [`${f}${l}`, `${f}.${l}`, `${f}_${l}`, `${f[0]}${l}`, `${l}${f[0]}`, `${f}${rng.int(60, 99)}`, `${f}${l[0]}`]
  let name = rng.pick(shapes)
  if (rng.chance(0.6)) name = name.toLowerCase()
  while (taken.has(name.toLowerCase())) name = `${name.replace(/\d+$/, '')}${rng.int(1, 9999)}`
  taken.add(name.toLowerCase())
  return name
}

/** Age in whole years: shaped like the adult population, fewer of the very young and very old online. */
function drawAge(rng: Random, table: AliasTable): number {
  const age = 16 + table.draw(rng)
  return age === 90 ? 90 + rng.int(0, 5) : age
}

function adultAgeTable(): AliasTable {
  const shape = ukAgeShape()
  const weights: number[] = []
  for (let age = 16; age <= 90; age++) {
    const online = age < 18 ? 0.4 : age < 65 ? 1 : age < 80 ? 0.6 : 0.25
    weights.push((age === 90 ? shape[90] / 6 : shape[age]) * online)
  }
  return new AliasTable(weights)
}

function dateOfBirth(rng: Random, age: number): string {
  const birthday = Date.UTC(REFERENCE_DATE.year - age - 1, REFERENCE_DATE.month - 1, REFERENCE_DATE.day)
  const offset = rng.int(1, 365) * DAY * 1000
  return new Date(birthday + offset).toISOString().slice(0, 10)
}

export interface PeopleResult {
  users: UserPool
  politicians: number
}

export async function seedPeople(ctx: SeedContext, areas: AreaIds): Promise<PeopleResult> {
  const rng = ctx.rng.stream('people')
  const n = ctx.scale.users
  const staffCount = n < 100 ? 2 : n < 10_000 ? 3 : 10
  const regionTable = new AliasTable(UK_REGIONS.map((r) => r.population))
  const ageTable = adultAgeTable()

  // Sign-up times, ascending with the id: staff at launch, then most people early on.
  const createdAt = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    createdAt[i] =
      i < staffCount ? BASE_TIME + i * 3600 : BASE_TIME + DAY + Math.floor((ACTIVITY_END - BASE_TIME - 30 * DAY) * rng.next() ** 1.7)
  }
  createdAt.sort()

  const people: Person[] = []
  const region = new Int8Array(n)
  const lean = new Float32Array(n)
  const activity = new Float64Array(n)
  const defaultPrivate = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    const abroad = i >= staffCount && rng.chance(0.07)
    region[i] = abroad ? -1 : regionTable.draw(rng)
    people.push({ ...personName(rng), region: region[i] })
    lean[i] = Math.max(-1, Math.min(1, rng.normal() * 0.55))
    activity[i] = rng.logNormal(1.1) * (i < staffCount ? 3 : 1)
    defaultPrivate[i] = rng.chance(0.1) ? 1 : 0
  }

  // Politicians are users who stand in their own region.
  const candidates: number[] = []
  for (let i = staffCount; i < n; i++) if (region[i] >= 0) candidates.push(i)
  const politicianUsers = rng.sample(candidates, ctx.scale.politicians).sort((a, b) => a - b)
  const politicianOf = new Map<number, number>()
  politicianUsers.forEach((userIndex, p) => {
    politicianOf.set(userIndex, p + 1)
    activity[userIndex] *= 3
  })
  await seedPoliticians(
    ctx,
    areas,
    politicianUsers.map((i) => ({ ...people[i], createdAt: createdAt[i] })),
  )
  ctx.progress('users', 0, n)

  const taken = new Set<string>()
  const rows: Record<string, unknown>[] = []
  const geos: Record<string, unknown>[] = []
  for (let i = 0; i < n; i++) {
    const id = i + 1
    const person = people[i]
    const home = person.region >= 0 ? UK_REGIONS[person.region] : null
    const countryId = home ? areas.gb : areas.countries.get(rng.pick(OTHER_COUNTRY_CODES))!
    const regionId = home ? areas.regions[person.region] : null
    const name = username(rng, person.first, person.last, taken)
    const located = home !== null && rng.chance(0.6)
    const phoneVerified = rng.chance(0.05)
    const lastLogin = createdAt[i] + Math.floor((ACTIVITY_END - createdAt[i]) * rng.next() ** 0.4)
    rows.push({
      id,
      username: name,
      email: `${name.toLowerCase()}@${rng.chance(0.7) ? 'example.org' : 'example.com'}`,
      password_hash: null,
      first_name: rng.chance(0.03) ? '' : person.first,
      last_name: rng.chance(0.05) ? '' : person.last,
      bio: rng.chance(0.3) || politicianOf.has(i) ? rng.pick(BIO_PHRASES) : '',
      photo: rng.chance(0.06) ? `https://images.example.org/avatars/${id}.jpg` : null,
      dob: rng.chance(0.9) ? dateOfBirth(rng, drawAge(rng, ageTable)) : null,
      gender: person.gender,
      address: located && rng.chance(0.5) ? rng.pick(home.places) : '',
      longitude: located ? Math.round((home.longitude + rng.normal() * 0.4) * 1e5) / 1e5 : null,
      latitude: located ? Math.round((home.latitude + rng.normal() * 0.3) * 1e5) / 1e5 : null,
      district_id: regionId,
      country_id: countryId,
      region_id: regionId,
      politician_id: politicianOf.get(i) ?? null,
      default_private: defaultPrivate[i] === 1,
      is_staff: i < staffCount,
      is_email_verified: i < staffCount || rng.chance(0.85),
      is_admin_verified: i < staffCount || politicianOf.has(i) || rng.chance(0.02),
      is_social1_verified: rng.chance(0.1),
      is_social3_verified: rng.chance(0.05),
      is_phone_verified: phoneVerified,
      phone: phoneVerified ? `+447700900${String(rng.int(0, 999)).padStart(3, '0')}` : null,
      agreed_terms: rng.chance(0.97),
      karma: Math.floor(activity[i] * rng.int(0, 20)),
      last_login: lastLogin,
      created_at: createdAt[i],
      modified_at: Math.max(createdAt[i], lastLogin - rng.int(0, 30) * DAY),
    })
    geos.push({ id: geos.length + 1, user_id: id, area_id: countryId, created_at: createdAt[i] })
    if (regionId !== null) geos.push({ id: geos.length + 1, user_id: id, area_id: regionId, created_at: createdAt[i] })
  }
  await insertRows(ctx.db, 'users', USER_SPEC, rows, loadOptions(ctx, 'users', n))
  await insertRows(ctx.db, 'user_geos', USER_GEO_SPEC, geos, loadOptions(ctx, 'user areas', geos.length))

  const users: UserPool = {
    count: n,
    createdAt,
    region,
    lean,
    activity,
    defaultPrivate,
    staffIds: Array.from({ length: staffCount }, (_, i) => i + 1),
    politicianUserIds: politicianUsers.map((i) => i + 1),
  }
  return { users, politicians: politicianUsers.length }
}
