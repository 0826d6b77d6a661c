import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { UrlBuilder } from '../../http/urls.ts'
import { loadAreas } from '../areas/areas.service.ts'
import { politiciansRepository } from '../politicians/politicians.repository.ts'
import { toFullUser } from './users.mapper.ts'
import { usersRepository, type UserRow } from './users.repository.ts'
import type { FullUser } from './users.schemas.ts'

export interface UserViewContext {
  db: Kysely<Database>
  urls: UrlBuilder
  callerId: number | null
  defaultAvatar: string | null
}

/**
 * Full users for a set of rows in a fixed number of statements, whatever their number: their
 * areas (with politicians), politicians, locations and the caller's follow links.
 */
export async function fullUsersFromRows(context: UserViewContext, rows: UserRow[]): Promise<Map<number, FullUser>> {
  const { db, urls, callerId } = context
  const repository = usersRepository(db)
  const ids = rows.map((row) => row.id)
  const [areas, politicians, locations, follows] = await Promise.all([
    loadAreas(db, rows.flatMap((row) => [row.country_id, row.region_id]), urls),
    politiciansRepository(db).findByIds(rows.map((row) => row.politician_id).filter((id): id is number => id !== null)),
    repository.locationIds(ids),
    callerId === null ? Promise.resolve([]) : repository.followLinks(callerId, ids),
  ])
  const out = new Map<number, FullUser>()
  for (const row of rows) {
    out.set(
      row.id,
      toFullUser(
        row,
        {
          politician: row.politician_id === null ? undefined : politicians.get(row.politician_id),
          country: row.country_id === null ? undefined : areas.get(row.country_id),
          region: row.region_id === null ? undefined : areas.get(row.region_id),
          locationIds: locations.get(row.id) ?? [],
          follow: follows.filter((link) => link.following_id === row.id),
        },
        urls,
        context.defaultAvatar,
      ),
    )
  }
  return out
}

export async function loadFullUsers(context: UserViewContext, ids: number[]): Promise<Map<number, FullUser>> {
  const rows = await usersRepository(context.db).findByIds(ids)
  return fullUsersFromRows(context, rows)
}
