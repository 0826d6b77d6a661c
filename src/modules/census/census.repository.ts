import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely'
import type { CensusData, Database } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { UrlBuilder } from '../../core/urls.ts'
import { CENSUS_AGES, type CensusListQuery, type CensusRecord } from './census.schemas.ts'

export type CensusRow = Selectable<CensusData>

export const CENSUS_ORDERING = orderingFieldsOf(['id', 'code', 'name', 'date', 'all_ages'], 'census_data')

/** `age_<N>` sorts by that year of the ages array; N is checked, so only a number reaches SQL. */
export function ageOrdering(name: string): RawBuilder<unknown> | null {
  const match = /^age_(\d{1,2})$/.exec(name)
  if (!match || Number(match[1]) >= CENSUS_AGES) return null
  return sql`census_data.ages[${sql.lit(Number(match[1]) + 1)}]`
}

export function censusRepository(db: Kysely<Database>) {
  return {
    async page(filters: CensusListQuery, list: ListRequest): Promise<RowsPage<CensusRow>> {
      const ordering = orderingTerms(list.ordering, CENSUS_ORDERING, ['code', 'date'], column('census_data.id'), ageOrdering)
      return pageOfRows<CensusRow>(list, this.filtered(filters), (q) => q.selectAll('census_data'), ordering)
    },

    /** Removes the records of one census date (null: the undated ones); how many there were. */
    async removeDate(date: string | null): Promise<number> {
      const deleted = await sql`DELETE FROM census_data WHERE date IS NOT DISTINCT FROM ${date}::date`.execute(db)
      return Number(deleted.numAffectedRows ?? 0)
    },

    /** Links the date's records to areas: an area is linked when it is the only one with the record's code (codes repeat only across levels). */
    async linkAreas(date: string | null): Promise<number> {
      const linked = await sql`UPDATE census_data c SET area_id = a.id
        FROM (SELECT code, min(id) AS id FROM areas GROUP BY code HAVING count(*) = 1) a
        WHERE c.code = a.code AND c.date IS NOT DISTINCT FROM ${date}::date`.execute(db)
      return Number(linked.numAffectedRows ?? 0)
    },

    async find(id: number): Promise<CensusRow | undefined> {
      return this.filtered({ id }).selectAll('census_data').executeTakeFirst()
    },

    filtered(filters: CensusListQuery) {
      let query = db.selectFrom('census_data')
      if (filters.id !== undefined) query = query.where('census_data.id', '=', filters.id)
      if (filters.geo !== undefined) query = query.where('census_data.area_id', '=', filters.geo)
      if (filters.code) query = query.where('census_data.code', '=', filters.code)
      return query
    },
  }
}

export function toCensusRecord(row: CensusRow, urls: UrlBuilder): CensusRecord {
  const ages = row.ages as number[]
  const record: Record<string, unknown> = {
    url: urls.detail('census_data', row.id),
    date: row.date,
    code: row.code,
    name: row.name,
    all_ages: row.all_ages,
  }
  for (let age = 0; age < CENSUS_AGES; age++) record[`age_${age}`] = ages[age] ?? 0
  record.geo = row.area_id
  return record as CensusRecord
}
