import type { SelectQueryBuilder } from 'kysely'
import type { OrderTerm } from './ordering.ts'

export const DEFAULT_PAGE_SIZE = 10
export const MAX_PAGE_SIZE = 100

/** One page of a listing: `page` from 1, `size` rows from `offset`. */
export interface PageRequest {
  page: number
  size: number
  offset: number
}

/** Remembers a listing's count until the data changes (the response cache's memo), keyed by its statement. */
export interface CountMemo {
  remember(key: string, count: () => Promise<number>): Promise<number>
}

/**
 * What a listing asks of its repository besides its own filters: which page (`last` is resolved once the count
 * is known), the client's ordering text (looked up in the resource's fields, never put in SQL), and where
 * counts are remembered.
 */
export interface ListRequest {
  page: PageRequest & { last: boolean }
  ordering: string | undefined
  counts?: CountMemo
}

/** A page of rows and the count of all rows the filters match. */
export interface RowsPage<Row> {
  page: PageRequest
  count: number
  rows: Row[]
}

/**
 * Any table's select builder. The callers name only the Row type, and TypeScript infers no type parameter
 * once one is given, so the builder's database and tables cannot be parameters beside it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: any table's builder, typed by Row at the call
export type AnySelect = SelectQueryBuilder<any, any, object>

export function pageCount(count: number, size: number): number {
  return Math.max(1, Math.ceil(count / size))
}

/** Resolves `page=last` once the count is known. */
export function resolvePage(page: PageRequest & { last: boolean }, count: number): PageRequest {
  if (!page.last) return { page: page.page, size: page.size, offset: page.offset }
  const last = pageCount(count, page.size)
  return { page: last, size: page.size, offset: (last - 1) * page.size }
}

/**
 * Runs a filtered listing as two statements: the count, then one ordered page of rows.
 * `filtered` has its FROM, joins and WHERE set but selects nothing yet.
 */
export async function pageOfRows<Row>(
  list: ListRequest,
  filtered: AnySelect,
  select: (query: AnySelect) => AnySelect,
  ordering: OrderTerm[],
): Promise<RowsPage<Row>> {
  const requested = list.page
  const counting = filtered.select((eb) => eb.fn.countAll<number>().as('count'))
  const countNow = async () => Number(((await counting.executeTakeFirstOrThrow()) as { count: number }).count)
  const key = list.counts ? memoKey(counting.compile()) : null
  const count = key === null ? await countNow() : await list.counts!.remember(key, countNow)
  const page = resolvePage(requested, count)
  let query = select(filtered)
  for (const term of ordering) query = query.orderBy(term.expression, term.direction)
  const rows = count > page.offset ? ((await query.limit(page.size).offset(page.offset).execute()) as Row[]) : []
  return { page, count, rows }
}

function memoKey({ sql, parameters }: { sql: string; parameters: readonly unknown[] }): string | null {
  try {
    return `count:${sql}:${JSON.stringify(parameters)}`
  } catch {
    return null
  }
}
