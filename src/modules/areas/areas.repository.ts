import { escapeLike } from '../../db/text-search.ts'
import type { Kysely, Selectable } from 'kysely'
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

    async findByIds(ids: number[]): Promise<Map<number, AreaRow>> {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return new Map()
      const rows = await db.selectFrom('areas').selectAll().where('id', 'in', unique).execute()
      return new Map(rows.map((row) => [row.id, row]))
    },
  }
}
