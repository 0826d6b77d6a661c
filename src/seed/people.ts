import { insertRows } from './bulk.ts'
import {
  ACTIVITY_END,
  BASE_TIME,
  DAY,
  loadOptions,
  REFERENCE_DATE,
  type AreaIds,
  type Person,
  type SeedContext,
  type UserPool,
} from './context.ts'
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

/**
 * Age in whole years. One draw from the adult population's shape (as the seed always drew it, so every
 * later draw of the seed stays where it was), then moved along the quantiles to the shape of an online
 * panel: many more people in their twenties and thirties, far fewer past 65 than the census has. The
 * weighting of results (docs/statistics.md) is there to correct exactly this.
 */
function drawAge(rng: Random, table: AliasTable, toPanel: readonly number[]): number {
  const drawn = 16 + table.draw(rng)
  const oldest = drawn === 90 ? 90 + rng.int(0, 5) : 90
  const age = toPanel[drawn - 16]
  return age === 90 ? oldest : age
}

const ADULT_AGES = 75 // 16 to 89, and 90 and over

function populationAgeWeights(): number[] {
  const shape = ukAgeShape()
  return Array.from({ length: ADULT_AGES }, (_, i) => (i + 16 === 90 ? shape[90] / 6 : shape[i + 16]))
}

/** How much more (or less) likely than the census an age is to join the online panel. */
function panelPropensity(age: number): number {
  if (age < 18) return 0.5
  if (age < 25) return 1.6
  if (age < 35) return 1.7
  if (age < 45) return 1.3
  if (age < 55) return 1
  if (age < 65) return 0.75
  if (age < 75) return 0.5
  if (age < 85) return 0.22
  return 0.08
}

function adultAgeTable(): AliasTable {
  return new AliasTable(populationAgeWeights())
}

/** For each age the population draws (16..90), the panel's age at the same quantile. */
function panelAges(): number[] {
  const population = populationAgeWeights()
  const panel = population.map((w, i) => w * panelPropensity(i + 16))
  const cumulative = (weights: number[]) => {
    const total = weights.reduce((s, w) => s + w, 0)
    let sum = 0
    return weights.map((w) => (sum += w) / total)
  }
  const from = cumulative(population)
  const to = cumulative(panel)
  return from.map((upper, i) => {
    const middle = ((i === 0 ? 0 : from[i - 1]) + upper) / 2
    const j = to.findIndex((c) => c >= middle)
    return 16 + (j < 0 ? ADULT_AGES - 1 : j)
  })
}

/**
 * How much more (or less) likely than its population share a region is to be where a panel member lives:
 * London and the regions of the big cities over-represented, rural regions and the smaller nations under.
 */
const REGION_PROPENSITY: Readonly<Record<string, number>> = {
  E12000007: 2, // London
  E12000002: 1.15, // North West: Manchester, Liverpool
  E12000005: 1.1, // West Midlands: Birmingham
  E12000003: 1,
  S92000003: 0.95,
  E12000008: 0.95,
  E12000001: 0.85,
  E12000004: 0.85,
  E12000006: 0.85,
  E12000009: 0.8,
  W92000004: 0.75,
  N92000002: 0.7,
}

/**
 * Answers lean with age and place as they do in opinion polls: younger people and Londoners one way, older
 * people the other, so that weighting the panel back to the census visibly moves the results.
 */
function leanShift(age: number | null, region: number): number {
  const byAge = age === null ? 0 : age < 30 ? -0.35 : age < 45 ? -0.15 : age < 60 ? 0.05 : age < 75 ? 0.25 : 0.35
  const london = region >= 0 && UK_REGIONS[region].code === 'E12000007' ? -0.15 : 0
  return byAge + london
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
  const regionTable = new AliasTable(UK_REGIONS.map((r) => r.population * (REGION_PROPENSITY[r.code] ?? 1)))
  const ageTable = adultAgeTable()
  const toPanel = panelAges()

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
  // Each person's age, once drawn (null: no date of birth); the date of birth is drawn right after it.
  const ageOf = new Array<number | null>(n).fill(null)
  const bornAt = (i: number, age: number) => {
    ageOf[i] = age
    return dateOfBirth(rng, age)
  }
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
      dob: rng.chance(0.9) ? bornAt(i, drawAge(rng, ageTable, toPanel)) : null,
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
    lean[i] = Math.max(-1, Math.min(1, lean[i] + leanShift(ageOf[i], region[i])))
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
