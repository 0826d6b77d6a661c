import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely'
import type { Database, Politicians } from '../../db/database.ts'
import { parseIdList } from '../../core/integers.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type AnySelect, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { matchingEveryTerm } from '../../db/text-search.ts'
import type { Politician, SimplePoliticianListQuery } from './politicians.schemas.ts'

export type PoliticianRow = Selectable<Politicians>
/** A politician with the id of the user account linked to it (null without one). */
export type LinkedPoliticianRow = PoliticianRow & { user_id: number | null }
export type PoliticianFilters = SimplePoliticianListQuery

/** What the listings sort by: the API's field names; group and area are the party and the area's name. */
const POLITICIAN_ORDERING: OrderingFields = {
  ...orderingFieldsOf(
    ['id', 'name', 'sort_name', 'chamber', 'term', 'start_date', 'end_date', 'type', 'created_at', 'modified_at'],
    'politicians',
  ),
  group: column('politicians.party'),
  area: column('politicians.area_name'),
}
const POLITICIAN_DEFAULT_ORDER = ['sort_name', 'name']

const orderingOf = (list: ListRequest, fields: OrderingFields = POLITICIAN_ORDERING, fallback = POLITICIAN_DEFAULT_ORDER) =>
  orderingTerms(list.ordering, fields, fallback, column('politicians.id'))

/** A linked account counts while the users listing shows it (active, or deleted and anonymised). */
const linkedUser = sql<number | null>`(SELECT u.id FROM users u
  WHERE u.politician_id = politicians.id AND (u.is_active OR u.is_deleted))`

/** The linked user's id as a selection, for listings' select step. */
const linkedUserId = linkedUser.as('user_id')

/** The areas of a user (country, region, district, user_geos) and every area above them: one recursive subquery. */
function areasOfUser(userId: number): RawBuilder<unknown> {
  return sql`(WITH RECURSIVE mine(id) AS (
    SELECT seed.id FROM (
      SELECT unnest(ARRAY[u.country_id, u.region_id, u.district_id]) AS id FROM users u WHERE u.id = ${userId}::int
      UNION SELECT g.area_id FROM user_geos g WHERE g.user_id = ${userId}::int
    ) seed WHERE seed.id IS NOT NULL
    UNION
    SELECT a.parent_id FROM mine m JOIN areas a ON a.id = m.id WHERE a.parent_id IS NOT NULL
  ) SELECT id FROM mine)`
}

/** The politicians whose ids `ids` (a subquery) selects, as one json value (null for none), a column of a larger statement. */
export function politiciansJson(ids: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(SELECT json_agg(p) FROM politicians p WHERE p.id IN (${ids}))`
}

/** politiciansJson's value as the driver gives rows: timestamps as Dates (json has them as text), dates as text. */
export function politiciansFromJson(json: unknown): Map<number, PoliticianRow> {
  const rows = (json ?? []) as Record<string, unknown>[]
  return new Map(
    rows.map((row) => [
      row.id as number,
      { ...row, created_at: new Date(row.created_at as string), modified_at: new Date(row.modified_at as string) } as PoliticianRow,
    ]),
  )
}

export function politiciansRepository(db: Kysely<Database>) {
  return {
    /** A page of politicians, with their linked account when `linked`: two statements. */
    async page(filters: PoliticianFilters, list: ListRequest, linked: boolean): Promise<RowsPage<LinkedPoliticianRow>> {
      const select = linked
        ? (q: AnySelect) => q.selectAll('politicians').select(linkedUserId)
        : (q: AnySelect) => q.selectAll('politicians')
      return pageOfRows<LinkedPoliticianRow>(list, this.filtered(filters), select, orderingOf(list))
    },

    /**
     * A page of the politicians of these areas with their linked account, nearest area first by default (ordering
     * field `level`: the area's place in `areaIds`, which run from an area up to the top): two statements.
     */
    async pageOfAreas(filters: PoliticianFilters, areaIds: readonly number[], list: ListRequest): Promise<RowsPage<LinkedPoliticianRow>> {
      const fields: OrderingFields = { ...POLITICIAN_ORDERING, level: sql`array_position(${[...areaIds]}::int4[], politicians.area_id)` }
      return pageOfRows<LinkedPoliticianRow>(
        list,
        this.filtered(filters, areaIds),
        (q) => q.selectAll('politicians').select(linkedUserId),
        orderingOf(list, fields, ['level', ...POLITICIAN_DEFAULT_ORDER]),
      )
    },

    /** The listings' filters (FROM and WHERE; nothing selected yet). `areaIds` narrows to politicians of those areas. */
    filtered(filters: PoliticianFilters, areaIds?: readonly number[]) {
      let query = db.selectFrom('politicians')
      if (filters.area !== undefined) query = query.where('politicians.area_id', '=', filters.area)
      // Sent empty, area__in is not applied (as IdList says); ids past the int4 range name nothing.
      if (filters.area__in) query = query.where('politicians.area_id', 'in', [...parseIdList(filters.area__in), -1])
      if (areaIds !== undefined) query = query.where('politicians.area_id', 'in', [...areaIds, -1])
      for (const party of [filters.party, filters.group]) if (party !== undefined) query = query.where('politicians.party', '=', party)
      for (const id of [filters.party_id, filters.group_id]) if (id !== undefined) query = query.where('politicians.party_id', '=', id)
      if (filters.type !== undefined) query = query.where('politicians.type', '=', filters.type)
      const searching = filters.search ? matchingEveryTerm(filters.search, ['politicians.name', 'politicians.sort_name']) : null
      if (searching) query = query.where(searching)
      return query
    },

    async findById(id: number): Promise<LinkedPoliticianRow | undefined> {
      return db
        .selectFrom('politicians')
        .selectAll('politicians')
        .select(linkedUser.as('user_id'))
        .where('politicians.id', '=', id)
        .executeTakeFirst()
    },

    /**
     * The politicians of a user's areas and of every area above them, filtered, in the listing's default order,
     * with their linked user: one statement.
     */
    async ofUserAreas(userId: number, filters: PoliticianFilters): Promise<{ id: number; user_id: number | null }[]> {
      const rows = await this.filtered(filters)
        .where(sql<boolean>`politicians.area_id IN ${areasOfUser(userId)}`)
        .select(['politicians.id', linkedUser.as('user_id')])
        .orderBy('politicians.sort_name')
        .orderBy('politicians.name')
        .orderBy('politicians.id')
        .execute()
      return rows.map((row) => ({ id: row.id, user_id: row.user_id === null ? null : Number(row.user_id) }))
    },

    /**
     * An area and every area above it, with how many steps up each is (0 for the area itself): one recursive
     * statement. Empty when there is no such area. The depth bound stops a cycle of parents.
     */
    async areaAndAbove(areaId: number): Promise<{ id: number; level: number }[]> {
      const { rows } = await sql<{ id: number; level: number }>`
        WITH RECURSIVE chain(id, level) AS (
          SELECT id, 0 FROM areas WHERE id = ${areaId}::int
          UNION ALL
          SELECT a.parent_id, c.level + 1 FROM chain c JOIN areas a ON a.id = c.id
          WHERE a.parent_id IS NOT NULL AND c.level < 64
        )
        SELECT id, min(level)::int AS level FROM chain GROUP BY id ORDER BY level`.execute(db)
      return rows.map((row) => ({ id: Number(row.id), level: Number(row.level) }))
    },

    /** Which of these areas exist, and whether the user exists (and is listed): one statement. */
    async filterTargets(areaIds: readonly number[], userId: number | null): Promise<{ areas: Set<number>; user: boolean }> {
      const { rows } = await sql<{ areas: number[] | null; user: boolean }>`
        SELECT (SELECT array_agg(id) FROM areas WHERE id = ANY(${[...areaIds]}::int4[])) AS areas,
          EXISTS (SELECT 1 FROM users WHERE id = ${userId}::int AND (is_active OR is_deleted)) AS user`.execute(db)
      return { areas: new Set((rows[0].areas ?? []).map(Number)), user: Boolean(rows[0].user) }
    },

    async findByIds(ids: number[]): Promise<Map<number, PoliticianRow>> {
      if (ids.length === 0) return new Map()
      const rows = await db
        .selectFrom('politicians')
        .selectAll()
        .where('id', 'in', [...new Set(ids)])
        .execute()
      return new Map(rows.map((row) => [row.id, row]))
    },

    /** Politician ids per area, for the `politicians` array of area objects. */
    async idsByArea(areaIds: number[]): Promise<Map<number, number[]>> {
      const out = new Map<number, number[]>()
      if (areaIds.length === 0) return out
      const rows = await db
        .selectFrom('politicians')
        .select(['id', 'area_id'])
        .where('area_id', 'in', [...new Set(areaIds)])
        .orderBy('id')
        .execute()
      for (const row of rows) {
        const list = out.get(row.area_id as number) ?? []
        list.push(row.id)
        out.set(row.area_id as number, list)
      }
      return out
    },
  }
}

export function toPolitician(row: PoliticianRow): Politician {
  return {
    id: row.id,
    ID: row.external_id,
    name: row.name,
    sort_name: row.sort_name,
    email: row.email,
    social3: row.social3,
    social1: row.social1,
    group: row.party,
    group_id: row.party_id,
    area_id: row.area_id === null ? '' : String(row.area_id),
    area: row.area_name,
    chamber: row.chamber,
    term: row.term,
    start_date: row.start_date ?? '',
    end_date: row.end_date,
    image: row.image,
    gender: row.gender,
    country: row.country,
    type: row.type,
    social4: row.social4,
    social1_page: row.social1_page,
    fundraising_page: row.fundraising_page,
    cv: row.cv,
    statement: row.statement,
  }
}
