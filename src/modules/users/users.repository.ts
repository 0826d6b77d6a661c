import { sql, type Kysely, type RawBuilder, type Selectable, type SelectQueryBuilder } from 'kysely'
import type { Database, UserAnswerCounts, Users } from '../../db/database.ts'
import type { Caller } from '../../core/caller.ts'
import { parseIdList } from '../../core/integers.ts'
import { column, orderingFieldsOf, orderingTerms, type OrderingFields } from '../../db/ordering.ts'
import { pageOfRows, type ListRequest, type RowsPage } from '../../db/paging.ts'
import { escapeLike } from '../../db/text-search.ts'
import { USER_ANSWER_COUNTERS } from '../../engines/figures/recompute.repository.ts'
import { readCompareCheck, type CompareCheck } from '../compare/compare-check.ts'
import type { UserListQuery } from './users.schemas.ts'
import { areasFromJson, areasJson, type AreaWithPoliticians } from '../areas/areas.repository.ts'
import { politiciansFromJson, politiciansJson, type PoliticianRow } from '../politicians/politicians.repository.ts'
import type { ComparisonRow } from '../compare/compare.repository.ts'

/**
 * The answer counters and times, kept beside the user's row (user_answer_counts, migration 051) so that an answer
 * rewrites eight columns instead of the whole row; every reader of full users joins them.
 */
const ANSWER_COUNTS = USER_ANSWER_COUNTERS satisfies readonly (keyof UserAnswerCounts)[]

export type UserRow = Selectable<Users> & Pick<Selectable<UserAnswerCounts>, (typeof ANSWER_COUNTS)[number]>

const ANSWER_COUNT_REFS = ANSWER_COUNTS.map((name) => `answer_counts.${name}` as const)

type UsersQuery = SelectQueryBuilder<Database, 'users', object>

/**
 * Full user rows of a query over `users`: the row and its answer counts (joined as `answer_counts`, which the
 * orderings by them name). Joined where rows are selected, so that a listing's count reads `users` alone.
 */
export const selectFullUsers = <O>(query: SelectQueryBuilder<Database, 'users', O>) =>
  query.innerJoin('user_answer_counts as answer_counts', 'answer_counts.id', 'users.id').selectAll('users').select(ANSWER_COUNT_REFS)

/** Full user rows (users with their answer counts), for raw statements: `FROM ${usersWithAnswerCountsSql} AS u`. */
export const usersWithAnswerCountsSql = sql.raw(
  `(SELECT users.*, ${ANSWER_COUNT_REFS.join(', ')} FROM users JOIN user_answer_counts answer_counts ON answer_counts.id = users.id)`,
)

export const USER_ORDERING = orderingFieldsOf(
  [
    'id',
    'username',
    'first_name',
    'last_name',
    'created_at',
    'modified_at',
    'last_answer_time',
    'karma',
    'count_votes',
    'count_question_votes',
    'count_followers',
    'count_comments',
    'count_questions',
  ],
  'users',
)
// The answer counters are ordered by where they are kept.
for (const name of ['last_answer_time', 'count_votes', 'count_question_votes']) USER_ORDERING[name] = column(`answer_counts.${name}`)

/**
 * The ordering fields as the viewer may sort by them: the answer counters and time count public answers only,
 * except on the viewer's own row and for staff (as `toFullUser` shows them).
 */
export function userOrdering(viewer: Caller | null): OrderingFields {
  if (viewer?.isStaff) return USER_ORDERING
  const seen = (name: string) =>
    viewer
      ? sql`CASE WHEN users.id = ${viewer.id} THEN ${sql.ref(`answer_counts.${name}`)} ELSE ${sql.ref(`answer_counts.public_${name}`)} END`
      : sql.ref(`answer_counts.public_${name}`)
  return {
    ...USER_ORDERING,
    last_answer_time: seen('last_answer_time') as OrderingFields[string],
    count_votes: seen('count_votes') as OrderingFields[string],
    count_question_votes: seen('count_question_votes') as OrderingFields[string],
  }
}

/** A json timestamp (text with microseconds) as both drivers read one: a Date truncated to the millisecond, as new Date does. */
const dateOf = (value: unknown): Date | null => (value === null ? null : new Date(value as string))
/** A json float8 as the drivers read it: NaN and the infinities come as strings. */
const floatOf = (value: unknown): number | null => (value === null ? null : Number(value))

const USER_TIMES = ['created_at', 'modified_at', 'deleted_at', 'last_answer_time', 'last_login', 'public_last_answer_time'] as const

/** Users rows aggregated as json (json_agg of whole rows), as the driver gives them. */
export function usersFromJson(json: unknown): UserRow[] {
  return ((json ?? []) as Record<string, unknown>[]).map((row) => {
    const out: Record<string, unknown> = { ...row, latitude: floatOf(row.latitude), longitude: floatOf(row.longitude) }
    for (const name of USER_TIMES) out[name] = dateOf(row[name])
    return out as UserRow
  })
}

/** What the full form of users embeds beside their row. */
export interface UserEmbeds {
  /** Their countries and regions (and any other areas asked for), with their politicians' ids. */
  areas: AreaWithPoliticians[]
  politicians: Map<number, PoliticianRow>
  /** Their user_geos ids, in id order. */
  locations: Map<number, number[]>
}

/** What a caller's own view of full users adds: their follow links to them, and their own latest comparisons. */
export interface CallerLinks {
  follows: { id: number; following_id: number; created_at: Date }[]
  latest: ComparisonRow[]
}

export const NO_CALLER_LINKS: CallerLinks = Object.freeze({ follows: [], latest: [] })

/** The subqueries naming what to embed: the users, the areas (their country and region, and more) and the politicians. */
export interface EmbedTargets {
  userIds: RawBuilder<unknown>
  areaIds: RawBuilder<unknown>
  politicianIds: RawBuilder<unknown>
}

/** Columns `areas`, `politicians` and `locations` of a statement that reads more beside them (userEmbedsFrom reads them). */
export function userEmbedColumns({ userIds, areaIds, politicianIds }: EmbedTargets): RawBuilder<unknown> {
  return sql`${areasJson(areaIds)} AS areas, ${politiciansJson(politicianIds)} AS politicians,
    (SELECT json_agg(json_build_array(g.user_id, g.id) ORDER BY g.id) FROM user_geos g WHERE g.user_id IN (${userIds})) AS locations`
}

export function userEmbedsFrom(row: { areas: unknown; politicians: unknown; locations: unknown }): UserEmbeds {
  const locations = new Map<number, number[]>()
  for (const [userId, id] of (row.locations ?? []) as [number, number][]) locations.set(userId, [...(locations.get(userId) ?? []), id])
  return { areas: areasFromJson(row.areas), politicians: politiciansFromJson(row.politicians), locations }
}

/**
 * Columns `follows` (the caller's links to the users of `userIds`) and `latest` (the caller's newest `latestSize`
 * comparisons, as compareRepository.latest orders them; only `withLatest`). Both null for no caller.
 */
export function callerLinkColumns(
  callerId: number | null,
  userIds: RawBuilder<unknown>,
  withLatest: boolean,
  latestSize: number,
): RawBuilder<unknown> {
  if (callerId === null) return sql`NULL::json AS follows, NULL::json AS latest`
  const latest = withLatest
    ? sql`(SELECT json_agg(c ORDER BY c.modified_at DESC, c.id DESC) FROM (
        SELECT * FROM user_compares WHERE user_id = ${callerId}::int ORDER BY modified_at DESC, id DESC LIMIT ${latestSize}) AS c)`
    : sql`NULL::json`
  return sql`(SELECT json_agg(json_build_array(f.id, f.following_id, f.created_at) ORDER BY f.id) FROM following_users f
      WHERE f.user_id = ${callerId}::int AND f.following_id IN (${userIds})) AS follows,
    ${latest} AS latest`
}

export function callerLinksFrom(row: { follows: unknown; latest: unknown }): CallerLinks {
  const follows = ((row.follows ?? []) as [number, number, string][]).map(([id, following_id, created_at]) => ({
    id,
    following_id,
    created_at: new Date(created_at),
  }))
  const latest = ((row.latest ?? []) as Record<string, unknown>[]).map(
    (row) =>
      ({
        ...row,
        difference_percent: floatOf(row.difference_percent),
        created_at: dateOf(row.created_at),
        modified_at: dateOf(row.modified_at),
      }) as ComparisonRow,
  )
  return { follows, latest }
}

interface EmbedsRow {
  areas: unknown
  politicians: unknown
  locations: unknown
  follows: unknown
  latest: unknown
}

export function usersRepository(db: Kysely<Database>) {
  return {
    /** Locks the user row until the transaction ends (NO KEY UPDATE: rows referencing the user can still be written). */
    async lock(id: number): Promise<void> {
      await db.selectFrom('users').select('id').where('id', '=', id).forNoKeyUpdate().execute()
    },

    /** A page of users as the viewer may sort them; `compare_check` narrows and orders by kept comparisons. */
    async page(filters: UserListQuery, viewer: Caller | null, list: ListRequest): Promise<RowsPage<UserRow>> {
      const compareCheck = readCompareCheck(filters.compare_check, viewer)
      const ordering = orderingTerms(list.ordering, userOrdering(viewer), ['id'], column('users.id'))
      if (compareCheck) ordering.unshift(compareCheck.order)
      return pageOfRows<UserRow>(list, this.filtered(filters, compareCheck), (q) => selectFullUsers(q as UsersQuery), ordering)
    },

    /** One user as listings show them (deactivated accounts are not found). */
    async listed(id: number): Promise<UserRow | undefined> {
      return selectFullUsers(this.filtered({ id })).executeTakeFirst()
    },

    /** Deactivated accounts leave listings; deleted ones stay, anonymised (their answers still count). */
    filtered(filters: UserListQuery, compareCheck: CompareCheck | null = null) {
      let query = db.selectFrom('users').where((eb) => eb.or([eb('users.is_active', '=', true), eb('users.is_deleted', '=', true)]))
      if (compareCheck) {
        // One kept comparison per (user, other): the join adds no rows, and lets the listing order by its figures.
        const { userId, minimum, visible } = compareCheck
        query = query
          .innerJoin('user_compares', (join) =>
            join
              .onRef('user_compares.other_id', '=', 'users.id')
              .on('user_compares.user_id', '=', userId)
              .on('user_compares.questions_counted', '>=', minimum),
          )
          .where((eb) => eb.lit(visible))
      }
      if (filters.id !== undefined) query = query.where('users.id', '=', filters.id)
      if (filters.id__in !== undefined) {
        const ids = parseIdList(filters.id__in)
        query = ids.length ? query.where('users.id', 'in', ids) : query.where('users.id', '=', -1)
      }
      if (filters.username) query = query.where('users.username', '=', filters.username)
      if (filters.username__iexact)
        query = query.where((eb) => eb(eb.fn('lower', ['users.username']), '=', filters.username__iexact!.toLowerCase()))
      if (filters.politician__type) {
        const type = filters.politician__type
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('politicians')
              .select('politicians.id')
              .whereRef('politicians.id', '=', 'users.politician_id')
              .where('politicians.type', '=', type),
          ),
        )
      }
      if (filters.locations__geo !== undefined) {
        const geo = filters.locations__geo
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('user_geos')
              .select('user_geos.id')
              .whereRef('user_geos.user_id', '=', 'users.id')
              .where('user_geos.area_id', '=', geo),
          ),
        )
      }
      if (filters.following !== undefined) {
        // Who follows that user: following_users_following_idx finds them, or following_users_unique probes each user.
        const followed = filters.following
        query = query.where((eb) =>
          eb.exists(
            eb
              .selectFrom('following_users')
              .select('following_users.id')
              .whereRef('following_users.user_id', '=', 'users.id')
              .where('following_users.following_id', '=', followed),
          ),
        )
      }
      if (filters.search) {
        const pattern = `%${escapeLike(filters.search)}%`
        query = query.where((eb) =>
          eb.or([
            eb('users.username', 'ilike', pattern),
            eb('users.first_name', 'ilike', pattern),
            eb('users.last_name', 'ilike', pattern),
          ]),
        )
      }
      return query
    },

    /** What a user summary shows, and the e-mail address, of these users. */
    async summaryRows(ids: number[]) {
      if (ids.length === 0) return []
      return db.selectFrom('users').select(['id', 'username', 'first_name', 'last_name', 'photo', 'email']).where('id', 'in', ids).execute()
    },

    /** Whether the id names someone who can take part: an active account that was not deleted. */
    async activeExists(id: number): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where('id', '=', id)
        .where('is_active', '=', true)
        .where('is_deleted', '=', false)
        .executeTakeFirst()
      return row !== undefined
    },

    async findByIds(ids: number[]): Promise<UserRow[]> {
      const unique = [...new Set(ids)]
      if (unique.length === 0) return []
      return selectFullUsers(db.selectFrom('users').where('users.id', 'in', unique)).execute()
    },

    /**
     * What these rows' full form embeds, and the caller's links to them (`withLatest`: their latest comparisons
     * too), in one statement.
     */
    async embedsOf(rows: UserRow[], callerId: number | null, withLatest: boolean, latestSize: number) {
      const ids = rows.map((row) => row.id)
      const targets = {
        userIds: sql`SELECT unnest(${ids}::int[])`,
        areaIds: sql`SELECT unnest(${rows.flatMap((row) => [row.country_id, row.region_id]).filter((id) => id !== null)}::int[])`,
        politicianIds: sql`SELECT unnest(${rows.flatMap((row) => row.politician_id ?? [])}::int[])`,
      }
      const links = callerLinkColumns(callerId, targets.userIds, withLatest, latestSize)
      const { rows: read } = await sql<EmbedsRow>`SELECT ${userEmbedColumns(targets)}, ${links}`.execute(db)
      return { embeds: userEmbedsFrom(read[0]!), links: callerLinksFrom(read[0]!) }
    },

    /** Users by id with what their full form embeds and the caller's links to them, in one statement. */
    async fullOf(ids: number[], callerId: number | null, latestSize: number) {
      const unique = [...new Set(ids)]
      const targets = {
        userIds: sql`SELECT id FROM people`,
        areaIds: sql`SELECT country_id FROM people UNION ALL SELECT region_id FROM people`,
        politicianIds: sql`SELECT politician_id FROM people`,
      }
      const links = callerLinkColumns(callerId, targets.userIds, callerId !== null && unique.includes(callerId), latestSize)
      const { rows } = await sql<EmbedsRow & { users: unknown }>`
        WITH people AS (SELECT * FROM ${usersWithAnswerCountsSql} AS u WHERE id = ANY(${unique}::int[]))
        SELECT (SELECT json_agg(people) FROM people) AS users, ${userEmbedColumns(targets)}, ${links}`.execute(db)
      const row = rows[0]!
      return { rows: usersFromJson(row.users), embeds: userEmbedsFrom(row), links: callerLinksFrom(row) }
    },
  }
}
