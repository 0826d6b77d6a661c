import { escapeLike } from '../../db/text-search.ts'
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely'
import type { Areas, Database } from '../../db/database.ts'
import { parseIdList } from '../../core/integers.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'

export type AreaRow = Selectable<Areas>

export interface AreaFilters {
  search?: string
  m_type?: string
  parent?: number
  ID?: string
  id__in?: string
}

export const AREA_ORDERING = orderingFieldsOf(
  ['id', 'name', 'm_type', 'created_at', 'modified_at', 'members_count', 'question_count'],
  'areas',
)

/** An area with the ids of its politicians, as the area object shows them. */
export interface AreaWithPoliticians {
  row: AreaRow
  politicianIds: number[]
}

/**
 * The areas whose ids `ids` (a subquery; nulls name nothing) selects, each with its politicians' ids in id order,
 * as one json value (null for none): a column of a statement that reads more beside them.
 */
export function areasJson(ids: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(SELECT json_agg(a) FROM (
    SELECT areas.*, ARRAY(SELECT p.id FROM politicians p WHERE p.area_id = areas.id ORDER BY p.id) AS politician_ids
      FROM areas WHERE areas.id IN (${ids})) AS a)`
}

/** areasJson's value as the driver would give the rows: json renders timestamps as text, and NaN as a string. */
export function areasFromJson(json: unknown): AreaWithPoliticians[] {
  return ((json ?? []) as (Record<string, unknown> & { politician_ids: number[] })[]).map(({ politician_ids, ...row }) => ({
    row: {
      ...row,
      latitude: Number(row.latitude),
      longitude: Number(row.longitude),
      created_at: new Date(row.created_at as string),
      modified_at: new Date(row.modified_at as string),
    } as AreaRow,
    politicianIds: politician_ids,
  }))
}

export function areasRepository(db: Kysely<Database>) {
  return {
    async page(filters: AreaFilters, list: ListRequest): Promise<RowsPage<AreaRow>> {
      const ordering = orderingTerms(list.ordering, AREA_ORDERING, ['id'], column('areas.id'))
      return pageOfRows<AreaRow>(list, this.filtered(filters), (q) => q.selectAll('areas'), ordering)
    },

    filtered(filters: AreaFilters) {
      let query = db.selectFrom('areas')
      if (filters.search) query = query.where('areas.name', 'ilike', `%${escapeLike(filters.search)}%`)
      if (filters.m_type) query = query.where('areas.m_type', '=', filters.m_type)
      if (filters.parent !== undefined) query = query.where('areas.parent_id', '=', filters.parent)
      if (filters.ID) query = query.where('areas.code', '=', filters.ID)
      if (filters.id__in !== undefined) query = query.where('areas.id', 'in', [...parseIdList(filters.id__in), -1])
      return query
    },

    async findById(id: number): Promise<AreaRow | undefined> {
      return db.selectFrom('areas').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** The areas `ids` (a subquery) selects, with their politicians' ids: one statement. */
    async withPoliticians(ids: RawBuilder<unknown>): Promise<AreaWithPoliticians[]> {
      const { rows } = await sql<{ areas: unknown }>`SELECT ${areasJson(ids)} AS areas`.execute(db)
      return areasFromJson(rows[0]?.areas)
    },
  }
}
