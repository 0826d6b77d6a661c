import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import { column, orderingFieldsOf, orderingTerms } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'

export interface UserGeoFilters {
  id?: number
  user?: number
  geo?: number
}

export type UserGeoRow = { id: number; user_id: number; area_id: number; created_at: Date }

const ORDERING = orderingFieldsOf(['id', 'created_at'], 'user_geos')

/** The links between users and their areas. */
export function userGeosRepository(db: Kysely<Database>) {
  return {
    async page(filters: UserGeoFilters, list: ListRequest): Promise<RowsPage<UserGeoRow>> {
      const ordering = orderingTerms(list.ordering, ORDERING, ['id'], column('user_geos.id'))
      return pageOfRows<UserGeoRow>(list, this.filtered(filters), (q) => q.selectAll('user_geos'), ordering)
    },

    filtered(filters: UserGeoFilters) {
      let query = db.selectFrom('user_geos')
      if (filters.id !== undefined) query = query.where('user_geos.id', '=', filters.id)
      if (filters.user !== undefined) query = query.where('user_geos.user_id', '=', filters.user)
      if (filters.geo !== undefined) query = query.where('user_geos.area_id', '=', filters.geo)
      return query
    },

    async find(id: number): Promise<UserGeoRow | undefined> {
      return this.filtered({ id }).selectAll('user_geos').executeTakeFirst()
    },
  }
}
