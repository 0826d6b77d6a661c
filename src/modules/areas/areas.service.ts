import { sql, type Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { politiciansRepository } from '../politicians/politicians.repository.ts'
import { toArea } from './areas.mapper.ts'
import { areasRepository, type AreaRow, type AreaWithPoliticians } from './areas.repository.ts'
import type { Area } from './areas.schemas.ts'

/** Full area objects for any number of areas in one statement (the areas with their politicians). */
export async function loadAreas(db: Kysely<Database>, ids: (number | null)[], urls: UrlBuilder): Promise<Map<number, Area>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))]
  if (wanted.length === 0) return new Map()
  return areaMap(await areasRepository(db).withPoliticians(sql`SELECT unnest(${wanted}::int[])`), urls)
}

export async function areasFromRows(db: Kysely<Database>, rows: AreaRow[], urls: UrlBuilder): Promise<Map<number, Area>> {
  const politicians = await politiciansRepository(db).idsByArea(rows.map((row) => row.id))
  return new Map(rows.map((row) => [row.id, toArea(row, politicians.get(row.id) ?? [], urls)]))
}

/** Area objects by id from areas read with their politicians. */
export function areaMap(areas: AreaWithPoliticians[], urls: UrlBuilder): Map<number, Area> {
  return new Map(areas.map(({ row, politicianIds }) => [row.id, toArea(row, politicianIds, urls)]))
}
