import { loadAreas } from '../areas/areas.service.ts'
import { politiciansRepository } from '../politicians/politicians.repository.ts'
import { toFullUser, toReducedUser } from './users.mapper.ts'
import { usersRepository, type UserRow } from './users.repository.ts'
import type { FullUser, ReducedUser } from './users.schemas.ts'
import { compareRepository } from '../compare/compare.repository.ts'
import { toLatestCompare } from '../compare/compare.mapper.ts'
import { LATEST_COMPARE_SIZE } from '../compare/compare.service.ts'
import type { ViewContext } from '../../core/view-context.ts'

/**
 * Full users for a set of rows in a fixed number of statements, whatever their number: their
 * areas (with politicians), politicians, locations and the caller's follow links. Answer counters are
 * the full ones for the caller's own row and for staff, the public ones otherwise.
 */
export async function fullUsersFromRows(context: ViewContext, rows: UserRow[]): Promise<Map<number, FullUser>> {
  const { db, urls } = context
  const callerId = context.caller?.id ?? null
  const repository = usersRepository(db)
  const ids = rows.map((row) => row.id)
  // latest_compare is the caller's own: one statement, only when the caller is among the rows.
  const withCaller = callerId !== null && ids.includes(callerId)
  const [areas, politicians, locations, follows, latest] = await Promise.all([
    loadAreas(
      db,
      rows.flatMap((row) => [row.country_id, row.region_id]),
      urls,
    ),
    politiciansRepository(db).findByIds(rows.map((row) => row.politician_id).filter((id): id is number => id !== null)),
    repository.locationIds(ids),
    callerId === null ? Promise.resolve([]) : repository.followLinks(callerId, ids),
    withCaller ? compareRepository(db).latest(callerId, LATEST_COMPARE_SIZE) : Promise.resolve([]),
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
          latestCompare: row.id === callerId ? latest.map(toLatestCompare) : [],
        },
        urls,
        context.defaultAvatar,
        callerId !== null && (row.id === callerId || context.caller?.isStaff === true),
      ),
    )
  }
  return out
}

export async function loadFullUsers(context: ViewContext, ids: number[]): Promise<Map<number, FullUser>> {
  const rows = await usersRepository(context.db).findByIds(ids)
  return fullUsersFromRows(context, rows)
}

/** Reduced users (spec 2.2) by id, in a fixed number of statements. */
export async function reducedUsers(context: ViewContext, ids: (number | null)[]): Promise<Map<number, ReducedUser>> {
  const wanted = ids.filter((id): id is number => id !== null)
  if (wanted.length === 0) return new Map()
  const users = await loadFullUsers(context, wanted)
  return new Map([...users].map(([id, user]) => [id, toReducedUser(user)]))
}
