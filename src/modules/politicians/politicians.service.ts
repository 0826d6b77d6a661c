import type { Kysely } from 'kysely'
import type { Database } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { fieldError, ValidationFailed, type FieldErrors } from '../../core/errors.ts'
import { parseIdList } from '../../core/integers.ts'
import { resolvePage, type ListRequest, type RowsPage } from '../../db/paging.ts'
import type { Distances } from '../compare/compare.compute.ts'
import { toMatchedPolitician } from './politicians.mapper.ts'
import { politicianMatchRepository, type SeparatingRow } from './politicians.match.repository.ts'
import { rankPoliticians } from './politicians.match.ts'
import { politiciansRepository, toPolitician, type LinkedPoliticianRow, type PoliticianFilters } from './politicians.repository.ts'
import { MATCH_SEPARATING_QUESTIONS, type PoliticianListItem, type PoliticianListQuery } from './politicians.schemas.ts'

/** django-filter's answer to an id naming nothing. */
const INVALID_CHOICE = 'Select a valid choice. That choice is not one of the available choices.'
const invalidChoiceOf = (id: number) => `Select a valid choice. ${id} is not one of the available choices.`

/** 400 naming each filter whose area or user does not exist: one statement, none without such filters. */
async function checkFilterTargets(db: Kysely<Database>, filters: PoliticianFilters, match?: number): Promise<void> {
  const listed = filters.area__in === undefined ? [] : parseIdList(filters.area__in)
  const areaIds = filters.area === undefined ? listed : [filters.area, ...listed]
  if (areaIds.length === 0 && match === undefined) return
  const found = await politiciansRepository(db).filterTargets(areaIds, match ?? null)
  const errors: FieldErrors = {}
  if (filters.area !== undefined && !found.areas.has(filters.area)) errors.area = [INVALID_CHOICE]
  const missing = listed.find((id) => !found.areas.has(id))
  if (missing !== undefined) errors.area__in = [invalidChoiceOf(missing)]
  if (match !== undefined && !found.user) errors.match = [INVALID_CHOICE]
  if (Object.keys(errors).length > 0) throw ValidationFailed(errors)
}

/**
 * politician: a page of full rows in the requested order (two statements, three with an area filter); with
 * `match`, the politicians matched with that user (see `matchPage`).
 */
export async function politicianPage(
  db: Kysely<Database>,
  caller: Caller | null,
  query: PoliticianListQuery,
  list: ListRequest,
): Promise<RowsPage<PoliticianListItem>> {
  const { match, ...filters } = query
  if (match !== undefined) return matchPage(db, caller, match, filters, list)
  await checkFilterTargets(db, filters)
  const page = await politiciansRepository(db).page(filters, list, false)
  return { ...page, rows: page.rows.map(toPolitician) }
}

/** simple_politicians: a page of rows with their linked account. */
export async function simplePoliticiansPage(
  db: Kysely<Database>,
  filters: PoliticianFilters,
  list: ListRequest,
): Promise<RowsPage<LinkedPoliticianRow>> {
  await checkFilterTargets(db, filters)
  return politiciansRepository(db).page(filters, list, true)
}

/**
 * simple_politicians_geos: the politicians of an area and of every area above it, nearest area first by
 * default (ordering field `level`: 0 the area itself, 1 its parent, …). 400 on geo when there is no such area.
 */
export async function politiciansOfAreaPage(
  db: Kysely<Database>,
  filters: PoliticianFilters & { geo: number },
  list: ListRequest,
): Promise<RowsPage<LinkedPoliticianRow>> {
  const repository = politiciansRepository(db)
  const chain = await repository.areaAndAbove(filters.geo)
  if (chain.length === 0) throw fieldError('geo', INVALID_CHOICE)
  await checkFilterTargets(db, filters)
  return repository.pageOfAreas(
    filters,
    chain.map((area) => area.id),
    list,
  )
}

/**
 * politician?match=<user>: the politicians of the user's areas and the areas above them, ranked by agreement
 * (docs/politicians.md). Five statements whatever their number: the filters' targets, the candidates, one
 * histogram per linked account, the page's rows, and the page's separating questions.
 */
async function matchPage(
  db: Kysely<Database>,
  caller: Caller | null,
  userId: number,
  filters: PoliticianFilters,
  list: ListRequest,
): Promise<RowsPage<PoliticianListItem>> {
  await checkFilterTargets(db, filters, userId)
  const repository = politiciansRepository(db)
  const matching = politicianMatchRepository(db)
  const candidates = await repository.ofUserAreas(userId, filters)
  const accounts = candidates.map((c) => c.user_id).filter((id): id is number => id !== null)
  const histograms = new Map<number, Distances>(
    (await matching.distanceHistograms(caller?.id ?? null, userId, accounts)).map((row) => [row.user_id, row.distances]),
  )
  const ranked = rankPoliticians(candidates, histograms)
  const page = resolvePage(list.page, ranked.length)
  const shown = ranked.slice(page.offset, page.offset + page.size)
  if (shown.length === 0) return { page, count: ranked.length, rows: [] }
  const rows = await repository.findByIds(shown.map((m) => m.id))
  const shownAccounts = shown.map((m) => m.user_id).filter((id): id is number => id !== null)
  const separating = new Map<number, SeparatingRow[]>()
  for (const row of await matching.separatingQuestions(caller, userId, shownAccounts, MATCH_SEPARATING_QUESTIONS)) {
    separating.set(row.user_id, [...(separating.get(row.user_id) ?? []), row])
  }
  return {
    page,
    count: ranked.length,
    // A politician deleted since the ranking leaves its place empty rather than failing the page.
    rows: shown
      .filter((m) => rows.has(m.id))
      .map((m) => toMatchedPolitician(rows.get(m.id)!, m, m.user_id === null ? [] : (separating.get(m.user_id) ?? []))),
  }
}
