import fs from 'node:fs'
import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Db } from '../../db/types.ts'
import { polygonsCentroid, type Centroid, type Position } from '../../import/centroid.ts'
import { ImportError } from '../../import/errors.ts'
import { quoted } from '../../import/values.ts'

/**
 * `civic-survey import-areas FILE`: a GeoJSON FeatureCollection, one area per feature. Properties (names
 * matched case-insensitively):
 * - `code` (required): the area's code; the ONS boundary files' `<PREFIX><YY>CD` (RGN22CD, LAD23CD…) too;
 * - `name` (required): or the ONS `<PREFIX><YY>NM`;
 * - `m_type` or `level` (required unless the ONS prefix gives it): country, region, county, district…;
 * - `parent_code` or `parent` (optional): the code of the parent area, in the file (anywhere in it) or
 *   already in the database; absent, an existing area keeps its parent;
 * - `type_description` (optional).
 * The geometry is a Point (its position) or a Polygon or MultiPolygon (its area-weighted centroid).
 * Areas are upserted by (code, m_type), the table's unique key. One transaction: any bad feature rolls
 * everything back and is reported as one line naming its index in `features`.
 */

export interface AreasImportResult {
  features: number
  created: number
  updated: number
}

interface AreaFeature {
  index: number
  code: string
  name: string
  mType: string
  typeDescription: string | null
  parentCode: string | null
  centroid: Centroid
}

/** Levels of the ONS boundary files' code prefixes (`RGN22CD` → region). */
const ONS_LEVELS: Readonly<Record<string, string>> = {
  ctry: 'country',
  rgn: 'region',
  cty: 'county',
  ctyua: 'county',
  utla: 'county',
  lad: 'district',
  ltla: 'district',
  cauth: 'combined_authority',
  pcon: 'constituency',
  wd: 'ward',
  msoa: 'msoa',
  lsoa: 'lsoa',
  oa: 'output_area',
}

const CHUNK = 5_000

function fail(index: number, code: string | null, problem: string): never {
  throw new ImportError(`features[${index}]${code ? ` (code ${quoted(code)})` : ''}: ${problem}`)
}

function property(props: Record<string, unknown>, names: readonly string[], pattern?: RegExp): { key: string; value: unknown } | null {
  for (const [key, value] of Object.entries(props)) {
    const lower = key.toLowerCase()
    if (names.includes(lower) || (pattern && pattern.test(lower))) {
      if (value !== null && value !== undefined && value !== '') return { key: lower, value }
    }
  }
  return null
}

function text(index: number, code: string | null, found: { key: string; value: unknown } | null, what: string): string | null {
  if (!found) return null
  const { value } = found
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value !== 'string') fail(index, code, `the ${what} (property "${found.key}") is not text`)
  const trimmed = value.trim()
  return trimmed === '' ? null : trimmed
}

function checkPosition(index: number, code: string, position: unknown): Position {
  if (!Array.isArray(position) || position.length < 2 || !position.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    fail(index, code, `a position is not [longitude, latitude]: ${quoted(JSON.stringify(position))}`)
  }
  const [longitude, latitude] = position as number[]
  if (longitude < -180 || longitude > 180) fail(index, code, `longitude ${longitude} is outside -180 to 180`)
  if (latitude < -90 || latitude > 90) fail(index, code, `latitude ${latitude} is outside -90 to 90`)
  return position as number[]
}

function checkPolygon(index: number, code: string, rings: unknown): Position[][] {
  if (!Array.isArray(rings) || rings.length === 0) fail(index, code, 'a polygon has no rings')
  return (rings as unknown[]).map((ring) => {
    if (!Array.isArray(ring) || ring.length < 3) fail(index, code, 'a polygon ring has fewer than 3 positions')
    return (ring as unknown[]).map((position) => checkPosition(index, code, position))
  })
}

function centroidOf(index: number, code: string, geometry: unknown): Centroid {
  if (!geometry || typeof geometry !== 'object') fail(index, code, 'the feature has no geometry')
  const { type, coordinates } = geometry as { type?: unknown; coordinates?: unknown }
  if (type === 'Point') {
    const [longitude, latitude] = checkPosition(index, code, coordinates)
    return { longitude, latitude }
  }
  if (type === 'Polygon') return polygonsCentroid([checkPolygon(index, code, coordinates)])
  if (type === 'MultiPolygon') {
    if (!Array.isArray(coordinates) || coordinates.length === 0) fail(index, code, 'a MultiPolygon has no polygons')
    return polygonsCentroid((coordinates as unknown[]).map((polygon) => checkPolygon(index, code, polygon)))
  }
  return fail(index, code, `geometry type ${quoted(String(type))} is not Point, Polygon or MultiPolygon`)
}

function readFeature(feature: unknown, index: number): AreaFeature {
  if (!feature || typeof feature !== 'object' || (feature as { type?: unknown }).type !== 'Feature') {
    fail(index, null, 'not a GeoJSON Feature')
  }
  const props = (feature as { properties?: unknown }).properties
  if (!props || typeof props !== 'object' || Array.isArray(props)) fail(index, null, 'the feature has no properties')
  const p = props as Record<string, unknown>
  const codeProperty = property(p, ['code', 'area_code'], /^[a-z]+\d{2}cd$/)
  const code = text(index, null, codeProperty, 'code')
  if (!code) fail(index, null, 'the properties have no code (code, or an ONS <PREFIX><YY>CD)')
  if (code.length > 50) fail(index, code, 'the code is longer than 50 characters')
  const name = text(index, code, property(p, ['name', 'area_name'], /^[a-z]+\d{2}nm$/), 'name')
  if (!name) fail(index, code, 'the properties have no name (name, or an ONS <PREFIX><YY>NM)')
  const onsPrefix = /^([a-z]+)\d{2}cd$/.exec(codeProperty!.key)?.[1]
  const mType = text(index, code, property(p, ['m_type', 'level']), 'level') ?? (onsPrefix ? ONS_LEVELS[onsPrefix] : undefined)
  if (!mType) fail(index, code, 'the properties have no level (m_type or level)')
  return {
    index,
    code,
    name,
    mType,
    typeDescription: text(index, code, property(p, ['type_description']), 'type description'),
    parentCode: text(index, code, property(p, ['parent_code', 'parent']), 'parent code'),
    centroid: centroidOf(index, code, (feature as { geometry?: unknown }).geometry),
  }
}

function readCollection(file: string): unknown[] {
  let document: unknown
  try {
    document = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    throw new ImportError(`not JSON: ${(error as Error).message}`)
  }
  const collection = document as { type?: unknown; features?: unknown }
  if (!document || typeof document !== 'object' || collection.type !== 'FeatureCollection') {
    throw new ImportError('not a GeoJSON FeatureCollection (its "type" must be "FeatureCollection")')
  }
  if (!Array.isArray(collection.features)) throw new ImportError('the FeatureCollection has no "features" array')
  if (collection.features.length === 0) throw new ImportError('the FeatureCollection has no features')
  return collection.features
}

/** Each feature's parent: another feature of the file (by index) or an area already in the database (by id). */
async function resolveParents(trx: Db, features: readonly AreaFeature[]): Promise<(({ feature: number } | { id: number }) | null)[]> {
  const inFile = new Map<string, number[]>()
  features.forEach((f) => inFile.set(f.code, [...(inFile.get(f.code) ?? []), f.index]))
  const outside = [...new Set(features.map((f) => f.parentCode).filter((c): c is string => c !== null && !inFile.has(c)))]
  const known = new Map<string, number[]>()
  if (outside.length > 0) {
    const rows = await sql<{
      code: string
      id: number
    }>`SELECT code, id FROM areas WHERE code = ANY(${outside}::text[]) ORDER BY id`.execute(trx)
    for (const row of rows.rows) known.set(row.code, [...(known.get(row.code) ?? []), row.id])
  }
  const parents = features.map((f) => {
    if (f.parentCode === null) return null
    const local = inFile.get(f.parentCode)
    if (local) {
      if (local.length > 1)
        fail(
          f.index,
          f.code,
          `the parent code ${quoted(f.parentCode)} is on ${local.length} features of the file (${local.map((i) => `features[${i}]`).join(', ')})`,
        )
      if (local[0] === f.index) fail(f.index, f.code, 'the area is its own parent')
      return { feature: local[0] }
    }
    const ids = known.get(f.parentCode)
    if (!ids) fail(f.index, f.code, `the parent code ${quoted(f.parentCode)} is neither in the file nor in the database`)
    if (ids.length > 1) fail(f.index, f.code, `the parent code ${quoted(f.parentCode)} belongs to ${ids.length} areas of the database`)
    return { id: ids[0] }
  })
  // A chain of parents inside the file must end: one that comes back to where it started is a cycle.
  features.forEach((f) => {
    let at: number | null = f.index
    for (let steps = 0; at !== null && steps <= features.length; steps++) {
      const parent: { feature: number } | { id: number } | null = parents[at]
      at = parent && 'feature' in parent ? parent.feature : null
      if (at === f.index) fail(f.index, f.code, 'the parents of the file make a cycle through this area')
    }
  })
  return parents
}

export async function importAreas(db: Kysely<Database>, file: string): Promise<AreasImportResult> {
  const raw = readCollection(file)
  const features = raw.map((feature, index) => readFeature(feature, index))
  const keys = new Map<string, number>()
  for (const f of features) {
    const key = `${f.mType}\u0000${f.code}`
    const first = keys.get(key)
    if (first !== undefined) fail(f.index, f.code, `the code and level ${quoted(f.mType)} are already those of features[${first}]`)
    keys.set(key, f.index)
  }
  return db.transaction().execute(async (trx) => {
    const parents = await resolveParents(trx, features)
    const ids = new Array<number>(features.length)
    let created = 0
    for (let start = 0; start < features.length; start += CHUNK) {
      const chunk = features.slice(start, start + CHUNK)
      const { rows } = await sql<{ id: number; code: string; m_type: string; created: boolean }>`
        INSERT INTO areas (code, name, m_type, type_description, longitude, latitude)
        SELECT * FROM unnest(${chunk.map((f) => f.code)}::text[], ${chunk.map((f) => f.name)}::text[],
          ${chunk.map((f) => f.mType)}::text[], ${chunk.map((f) => f.typeDescription)}::text[],
          ${chunk.map((f) => f.centroid.longitude)}::float8[], ${chunk.map((f) => f.centroid.latitude)}::float8[])
        ON CONFLICT (code, m_type) DO UPDATE SET name = excluded.name,
          type_description = coalesce(excluded.type_description, areas.type_description),
          longitude = excluded.longitude, latitude = excluded.latitude, modified_at = now()
        RETURNING id, code, m_type, (xmax = 0) AS created`.execute(trx)
      for (const row of rows) {
        ids[keys.get(`${row.m_type}\u0000${row.code}`)!] = row.id
        if (row.created) created++
      }
    }
    const child: number[] = []
    const parent: number[] = []
    parents.forEach((p, i) => {
      if (!p) return
      child.push(ids[i])
      parent.push('feature' in p ? ids[p.feature] : p.id)
    })
    for (let start = 0; start < child.length; start += CHUNK) {
      await sql`UPDATE areas SET parent_id = u.parent_id
        FROM unnest(${child.slice(start, start + CHUNK)}::int4[], ${parent.slice(start, start + CHUNK)}::int4[]) AS u(id, parent_id)
        WHERE areas.id = u.id`.execute(trx)
    }
    // A parent taken from the database may be a descendant of an area the file moves under it.
    if (child.length > 0) {
      const { rows: cycles } = await sql<{ start: number }>`
        WITH RECURSIVE up(start, id, depth) AS (
          SELECT a.id, a.parent_id, 1 FROM areas a WHERE a.id = ANY(${child}::int4[])
          UNION ALL
          SELECT up.start, a.parent_id, up.depth + 1 FROM up JOIN areas a ON a.id = up.id
          WHERE a.parent_id IS NOT NULL AND up.id <> up.start AND up.depth < 64
        )
        SELECT start FROM up WHERE id = start LIMIT 1`.execute(trx)
      if (cycles.length > 0) {
        const f = features[ids.indexOf(cycles[0].start)]
        fail(f.index, f.code, 'its parent is one of its own descendants in the database (a cycle)')
      }
    }
    return { features: features.length, created, updated: features.length - created }
  })
}
