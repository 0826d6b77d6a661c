import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { politiciansRepository } from '../politicians/politicians.repository.ts'
import { toArea } from './areas.mapper.ts'
import { areasRepository, type AreaRow } from './areas.repository.ts'
import type { Area } from './areas.schemas.ts'

/** Full area objects for any number of areas in two statements (areas, then their politicians). */
export async function loadAreas(db: Kysely<Database>, ids: (number | null)[], urls: UrlBuilder): Promise<Map<number, Area>> {
  const wanted = ids.filter((id): id is number => id !== null)
  const rows = await areasRepository(db).findByIds(wanted)
  return areasFromRows(db, [...rows.values()], urls)
}

export async function areasFromRows(db: Kysely<Database>, rows: AreaRow[], urls: UrlBuilder): Promise<Map<number, Area>> {
  const politicians = await politiciansRepository(db).idsByArea(rows.map((row) => row.id))
  return new Map(rows.map((row) => [row.id, toArea(row, politicians.get(row.id) ?? [], urls)]))
}
