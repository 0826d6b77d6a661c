import worldCountries, { type Country } from 'world-countries'
import { insertRows } from './bulk.ts'
import { BASE_TIME, type AreaIds, type SeedContext } from './context.ts'
import { UK_COUNTRY_CODE, UK_REGIONS } from './data/uk-regions.ts'

/** The package is CommonJS (`module.exports` is the array) while its typings describe an ES default export. */
const countries: readonly Country[] = Array.isArray(worldCountries)
  ? worldCountries
  : (worldCountries as unknown as { default: Country[] }).default

const AREA_SPEC = {
  id: 'int',
  code: 'text',
  name: 'text',
  m_type: 'text',
  type_description: 'text',
  parent_id: 'int',
  longitude: 'float',
  latitude: 'float',
  created_at: 'time',
  modified_at: 'time',
} as const

/** The UK's area id in the original service, which its web app relies on. */
export const UK_AREA_ID = 59

/** Every country of the `world-countries` data (by ISO code), then the UK's regions and nations under GB. */
export async function seedAreas(ctx: SeedContext): Promise<AreaIds> {
  const sorted = [...countries].sort((a, b) => (a.cca2 < b.cca2 ? -1 : a.cca2 > b.cca2 ? 1 : 0))
  // The original web app asks for census data of area 59, the UK, when a region has none: keep that id.
  const gbIndex = sorted.findIndex((country) => country.cca2 === UK_COUNTRY_CODE)
  if (gbIndex >= 0) sorted.splice(UK_AREA_ID - 1, 0, ...sorted.splice(gbIndex, 1))
  const rows: Record<string, unknown>[] = []
  const ids: AreaIds = { gb: 0, regions: [], countries: new Map(), count: 0 }
  for (const country of sorted) {
    const id = rows.length + 1
    ids.countries.set(country.cca2, id)
    rows.push({
      id,
      code: country.cca2,
      name: country.name.common,
      m_type: 'country',
      type_description: country.independent ? 'Country' : 'Territory',
      parent_id: null,
      longitude: country.latlng[1],
      latitude: country.latlng[0],
      created_at: BASE_TIME,
      modified_at: BASE_TIME,
    })
  }
  const gb = ids.countries.get(UK_COUNTRY_CODE)
  if (!gb) throw new Error(`world-countries has no ${UK_COUNTRY_CODE} entry`)
  ids.gb = gb
  for (const region of UK_REGIONS) {
    const id = rows.length + 1
    ids.regions.push(id)
    rows.push({
      id,
      code: region.code,
      name: region.name,
      m_type: 'region',
      type_description: region.typeDescription,
      parent_id: gb,
      longitude: region.longitude,
      latitude: region.latitude,
      created_at: BASE_TIME,
      modified_at: BASE_TIME,
    })
  }
  await insertRows(ctx.db, 'areas', AREA_SPEC, rows)
  ids.count = rows.length
  ctx.progress('areas', rows.length, rows.length)
  return ids
}
