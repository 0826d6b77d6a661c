import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'

export interface UserGeoFilters {
  id?: number
  user?: number
  geo?: number
}

export type UserGeoRow = { id: number; user_id: number; area_id: number; created_at: Date }

/** The links between users and their areas. */
export function userGeosRepository(db: Kysely<Database>) {
  return {
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
