import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { FastifyRequest } from 'fastify'
import type { App } from '../../http/app-type.ts'
import { UrlBuilder } from '../../http/urls.ts'
import { loadAreas } from '../areas/areas.service.ts'
import { politiciansRepository } from '../politicians/politicians.repository.ts'
import { toFullUser, toReducedUser } from './users.mapper.ts'
import { usersRepository, type UserRow } from './users.repository.ts'
import type { FullUser, ReducedUser } from './users.schemas.ts'
import { compareRepository } from '../compare/compare.repository.ts'
import { toLatestCompare } from '../compare/compare.mapper.ts'
import { LATEST_COMPARE_SIZE } from '../compare/compare.service.ts'

export interface UserViewContext {
  db: Kysely<Database>
  urls: UrlBuilder
  callerId: number | null
  /** Staff see every user's answer counters in full; a view with no caller (a shared page) never does. */
  callerIsStaff?: boolean
  defaultAvatar: string | null
  /** MIN_CELL_SIZE, for the question figures shown beside users (src/disclosure/figures.ts). */
  minCellSize: number
}

/**
 * Full users for a set of rows in a fixed number of statements, whatever their number: their
 * areas (with politicians), politicians, locations and the caller's follow links. Answer counters are
 * the full ones for the caller's own row and for staff, the public ones otherwise.
 */
export async function fullUsersFromRows(context: UserViewContext, rows: UserRow[]): Promise<Map<number, FullUser>> {
  const { db, urls, callerId } = context
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
        callerId !== null && (row.id === callerId || context.callerIsStaff === true),
      ),
    )
  }
  return out
}

export async function loadFullUsers(context: UserViewContext, ids: number[]): Promise<Map<number, FullUser>> {
  const rows = await usersRepository(context.db).findByIds(ids)
  return fullUsersFromRows(context, rows)
}

/** How the request's caller sees users: their follow links, and URLs on the request's host. */
export function userViewContext(app: App, request: FastifyRequest): UserViewContext {
  return {
    db: app.db,
    urls: UrlBuilder.for(request),
    callerId: request.caller?.id ?? null,
    callerIsStaff: request.caller?.isStaff ?? false,
    defaultAvatar: app.config.defaultAvatarUrl,
    minCellSize: app.config.minCellSize,
  }
}

/** Reduced users (spec 2.2) by id, in a fixed number of statements. */
export async function reducedUsers(app: App, request: FastifyRequest, ids: (number | null)[]): Promise<Map<number, ReducedUser>> {
  const wanted = ids.filter((id): id is number => id !== null)
  if (wanted.length === 0) return new Map()
  const users = await loadFullUsers(userViewContext(app, request), wanted)
  return new Map([...users].map(([id, user]) => [id, toReducedUser(user)]))
}
