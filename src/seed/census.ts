import { insertRows } from './bulk.ts'
import { BASE_TIME, type AreaIds, type SeedContext } from './context.ts'
import { UK_COUNTRY_CODE, UK_REGIONS } from './data/uk-regions.ts'
import type { Random } from './random.ts'

/**
 * Census population by single year of age, 0 to 90 (90 meaning 90 and over), for the UK and for each
 * of its regions and nations.
 *
 * These counts are SYNTHETIC, not official figures. They are shaped like the UK's 2021 population
 * pyramid (small recent birth cohorts, a bulge around 30, the 1960s baby boom in the late fifties, the
 * post-war spike in the early seventies, then the decline of old age and an open-ended 90+ group),
 * tilted younger for London and older for the more rural regions and nations, and scaled to roughly
 * the real population of each area.
 */

/** UK population (thousands) at some ages; the ages between are interpolated and smoothed. */
const UK_SHAPE_POINTS: readonly [number, number][] = [
  [0, 690],
  [4, 720],
  [8, 790],
  [12, 810],
  [16, 760],
  [19, 730],
  [22, 790],
  [27, 860],
  [32, 900],
  [37, 880],
  [42, 820],
  [47, 820],
  [52, 890],
  [56, 940],
  [59, 910],
  [63, 810],
  [67, 730],
  [70, 690],
  [73, 770],
  [75, 660],
  [79, 540],
  [83, 410],
  [86, 300],
  [89, 190],
  [90, 610],
]

/** Relative population at each age 0..90 (index 90 holds 90 and over). */
export function ukAgeShape(): number[] {
  const raw: number[] = []
  for (let i = 0; i < UK_SHAPE_POINTS.length - 1; i++) {
    const [a0, v0] = UK_SHAPE_POINTS[i]
    const [a1, v1] = UK_SHAPE_POINTS[i + 1]
    for (let a = a0; a < a1; a++) raw.push(v0 + ((v1 - v0) * (a - a0)) / (a1 - a0))
  }
  raw.push(UK_SHAPE_POINTS[UK_SHAPE_POINTS.length - 1][1])
  // A light moving average rounds off the corners of the interpolation; the open 90+ group stays as it is.
  return raw.map((v, a) => (a === 0 || a >= 89 ? v : (raw[a - 1] + 2 * v + raw[a + 1]) / 4))
}

/** Younger (positive) or older (negative) than the UK as a whole. */
const AGE_TILT: Readonly<Record<string, number>> = {
  E12000007: 0.35, // London
  E12000002: 0.03,
  E12000003: 0.02,
  E12000005: 0.04,
  E12000004: -0.02,
  E12000006: -0.02,
  E12000008: -0.03,
  E12000001: -0.06,
  E12000009: -0.12,
  S92000003: -0.08,
  W92000004: -0.1,
  N92000002: 0.05,
}

function tilt(age: number, amount: number): number {
  const weight = age < 18 ? 0.3 : age < 45 ? 1 : age < 60 ? 0 : age < 75 ? -0.8 : -1
  return Math.max(0.2, 1 + amount * weight)
}

function regionAges(rng: Random, shape: readonly number[], code: string, population: number, amount = AGE_TILT[code] ?? 0): number[] {
  const tilted = shape.map((v, age) => v * tilt(age, amount) * (1 + rng.normal() * 0.006))
  const smooth = tilted.map((v, a) => (a === 0 || a >= 89 ? v : (tilted[a - 1] + 2 * v + tilted[a + 1]) / 4))
  const total = smooth.reduce((s, v) => s + v, 0)
  return smooth.map((v) => Math.round((v * population) / total))
}

/**
 * The other countries seeded people live in (OTHER_COUNTRY_CODES): name, rounded 2021 population and how
 * much younger (positive) or older (negative) than the UK. Synthetic records of the same UK shape, tilted.
 */
const OTHER_COUNTRIES: readonly { code: string; name: string; population: number; tilt: number }[] = [
  { code: 'IE', name: 'Ireland', population: 5_030_000, tilt: 0.08 },
  { code: 'US', name: 'United States', population: 331_900_000, tilt: 0.05 },
  { code: 'FR', name: 'France', population: 67_750_000, tilt: -0.05 },
  { code: 'DE', name: 'Germany', population: 83_200_000, tilt: -0.15 },
  { code: 'ES', name: 'Spain', population: 47_400_000, tilt: -0.1 },
  { code: 'IN', name: 'India', population: 1_408_000_000, tilt: 0.6 },
  { code: 'PL', name: 'Poland', population: 37_750_000, tilt: -0.05 },
  { code: 'NG', name: 'Nigeria', population: 213_400_000, tilt: 1 },
  { code: 'AU', name: 'Australia', population: 25_690_000, tilt: 0.05 },
  { code: 'CA', name: 'Canada', population: 38_250_000, tilt: 0 },
  { code: 'NL', name: 'Netherlands', population: 17_530_000, tilt: -0.05 },
  { code: 'IT', name: 'Italy', population: 59_110_000, tilt: -0.2 },
  { code: 'PT', name: 'Portugal', population: 10_330_000, tilt: -0.15 },
  { code: 'PK', name: 'Pakistan', population: 231_400_000, tilt: 0.9 },
  { code: 'ZA', name: 'South Africa', population: 59_390_000, tilt: 0.6 },
  { code: 'NZ', name: 'New Zealand', population: 5_120_000, tilt: 0.05 },
  { code: 'SE', name: 'Sweden', population: 10_420_000, tilt: -0.03 },
]

const CENSUS_SPEC = {
  id: 'int',
  area_id: 'int',
  code: 'text',
  name: 'text',
  date: 'date',
  all_ages: 'int',
  ages: 'intarray',
  created_at: 'time',
  modified_at: 'time',
} as const

export const CENSUS_DATE = '2021-03-21'

export async function seedCensus(ctx: SeedContext, areas: AreaIds): Promise<number> {
  const rng = ctx.rng.stream('census')
  const shape = ukAgeShape()
  const regions = UK_REGIONS.map((region) => regionAges(rng, shape, region.code, region.population))
  const uk = shape.map((_, age) => regions.reduce((s, ages) => s + ages[age], 0))
  const records = [
    { areaId: areas.gb, code: UK_COUNTRY_CODE, name: 'United Kingdom', ages: uk },
    ...UK_REGIONS.map((region, r) => ({ areaId: areas.regions[r], code: region.code, name: region.name, ages: regions[r] })),
    // Every other country a seeded person lives in, after the UK's records (whose draws stay as they were).
    ...OTHER_COUNTRIES.filter((country) => areas.countries.has(country.code)).map((country) => ({
      areaId: areas.countries.get(country.code)!,
      code: country.code,
      name: country.name,
      ages: regionAges(rng, shape, country.code, country.population, country.tilt),
    })),
  ]
  const rows = records.map((record, i) => ({
    id: i + 1,
    area_id: record.areaId,
    code: record.code,
    name: record.name,
    date: CENSUS_DATE,
    all_ages: record.ages.reduce((s, v) => s + v, 0),
    ages: `{${record.ages.join(',')}}`,
    created_at: BASE_TIME,
    modified_at: BASE_TIME,
  }))
  await insertRows(ctx.db, 'census_data', CENSUS_SPEC, rows)
  ctx.progress('census', rows.length, rows.length)
  return rows.length
}
