import { areaMap } from '../areas/areas.service.ts'
import { toFullUser, toReducedUser } from './users.mapper.ts'
import { usersRepository, type CallerLinks, type UserEmbeds, type UserRow } from './users.repository.ts'
import type { FullUser, ReducedUser } from './users.schemas.ts'
import { toLatestCompare } from '../compare/compare.mapper.ts'
import { LATEST_COMPARE_SIZE } from '../compare/compare.service.ts'
import type { ViewContext } from '../../core/view-context.ts'

/**
 * Full users from their rows, what they embed and the caller's links to them (none for an anonymous caller).
 * Answer counters are the full ones for the caller's own row and for staff, the public ones otherwise.
 */
export function toFullUsers(context: ViewContext, rows: UserRow[], embeds: UserEmbeds, links: CallerLinks): Map<number, FullUser> {
  const { urls } = context
  const callerId = context.caller?.id ?? null
  const areas = areaMap(embeds.areas, urls)
  const out = new Map<number, FullUser>()
  for (const row of rows) {
    out.set(
      row.id,
      toFullUser(
        row,
        {
          politician: row.politician_id === null ? undefined : embeds.politicians.get(row.politician_id),
          country: row.country_id === null ? undefined : areas.get(row.country_id),
          region: row.region_id === null ? undefined : areas.get(row.region_id),
          locationIds: embeds.locations.get(row.id) ?? [],
          follow: links.follows.filter((link) => link.following_id === row.id),
          latestCompare: row.id === callerId ? links.latest.map(toLatestCompare) : [],
        },
        urls,
        context.defaultAvatar,
        callerId !== null && (row.id === callerId || context.caller?.isStaff === true),
      ),
    )
  }
  return out
}

/**
 * Full users for a set of rows in one statement, whatever their number: their areas (with politicians),
 * politicians, locations, the caller's follow links and, when the caller is among them, their latest comparisons.
 */
export async function fullUsersFromRows(context: ViewContext, rows: UserRow[]): Promise<Map<number, FullUser>> {
  if (rows.length === 0) return new Map()
  const callerId = context.caller?.id ?? null
  const withLatest = callerId !== null && rows.some((row) => row.id === callerId)
  const { embeds, links } = await usersRepository(context.db).embedsOf(rows, callerId, withLatest, LATEST_COMPARE_SIZE)
  return toFullUsers(context, rows, embeds, links)
}

/** Full users by id, in one statement. */
export async function loadFullUsers(context: ViewContext, ids: number[]): Promise<Map<number, FullUser>> {
  if (ids.length === 0) return new Map()
  const { rows, embeds, links } = await usersRepository(context.db).fullOf(ids, context.caller?.id ?? null, LATEST_COMPARE_SIZE)
  return toFullUsers(context, rows, embeds, links)
}

/** Reduced users (spec 2.2) by id, in one statement. */
export async function reducedUsers(context: ViewContext, ids: (number | null)[]): Promise<Map<number, ReducedUser>> {
  const wanted = ids.filter((id): id is number => id !== null)
  if (wanted.length === 0) return new Map()
  const users = await loadFullUsers(context, wanted)
  return new Map([...users].map(([id, user]) => [id, toReducedUser(user)]))
}
