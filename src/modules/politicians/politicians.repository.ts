import type { Kysely, Selectable } from 'kysely'
import type { Database, Politicians } from '../../db/database.ts'
import type { Politician } from './politicians.schemas.ts'

export type PoliticianRow = Selectable<Politicians>

export function politiciansRepository(db: Kysely<Database>) {
  return {
    async findByIds(ids: number[]): Promise<Map<number, PoliticianRow>> {
      if (ids.length === 0) return new Map()
      const rows = await db
        .selectFrom('politicians')
        .selectAll()
        .where('id', 'in', [...new Set(ids)])
        .execute()
      return new Map(rows.map((row) => [row.id, row]))
    },

    /** Politician ids per area, for the `politicians` array of area objects. */
    async idsByArea(areaIds: number[]): Promise<Map<number, number[]>> {
      const out = new Map<number, number[]>()
      if (areaIds.length === 0) return out
      const rows = await db
        .selectFrom('politicians')
        .select(['id', 'area_id'])
        .where('area_id', 'in', [...new Set(areaIds)])
        .orderBy('id')
        .execute()
      for (const row of rows) {
        const list = out.get(row.area_id as number) ?? []
        list.push(row.id)
        out.set(row.area_id as number, list)
      }
      return out
    },
  }
}

export function toPolitician(row: PoliticianRow): Politician {
  return {
    id: row.id,
    ID: row.external_id,
    name: row.name,
    sort_name: row.sort_name,
    email: row.email,
    social3: row.social3,
    social1: row.social1,
    group: row.party,
    group_id: row.party_id,
    area_id: row.area_id === null ? '' : String(row.area_id),
    area: row.area_name,
    chamber: row.chamber,
    term: row.term,
    start_date: row.start_date ?? '',
    end_date: row.end_date,
    image: row.image,
    gender: row.gender,
    country: row.country,
    type: row.type,
    social4: row.social4,
    social1_page: row.social1_page,
    fundraising_page: row.fundraising_page,
    cv: row.cv,
    statement: row.statement,
  }
}
