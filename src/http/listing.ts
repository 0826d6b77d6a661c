import type { FastifyRequest } from 'fastify'
import type { SelectQueryBuilder } from 'kysely'
import { envelope, pageRequest, type Envelope } from './pagination.ts'
import { resolvePage } from '../db/paging.ts'
import type { OrderTerm } from '../db/ordering.ts'

/**
 * Any table's select builder. The callers name only the Row type, and TypeScript infers no type parameter
 * once one is given, so the builder's database and tables cannot be parameters beside it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above: any table's builder, typed by Row at the call
export type AnySelect = SelectQueryBuilder<any, any, object>

/**
 * Runs a filtered listing as two statements: the count, then one ordered page of ids' rows.
 * `filtered` has its FROM, joins and WHERE set but selects nothing yet.
 */
export async function pageOfRows<Row>(
  request: FastifyRequest,
  filtered: AnySelect,
  select: (query: AnySelect) => AnySelect,
  ordering: OrderTerm[],
): Promise<{ page: ReturnType<typeof resolvePage>; count: number; rows: Row[] }> {
  const requested = pageRequest(request.query as Record<string, unknown>)
  // The count reads every matching row: kept in memory until the data changes (src/http/response-cache.ts).
  const counting = filtered.select((eb) => eb.fn.countAll<number>().as('count'))
  const { sql, parameters } = counting.compile()
  const countNow = async () => Number(((await counting.executeTakeFirstOrThrow()) as { count: number }).count)
  const key = memoKey(sql, parameters)
  const count = key === null ? await countNow() : await request.server.responseCache.remember(key, countNow)
  const page = resolvePage(requested, count)
  let query = select(filtered)
  for (const term of ordering) query = query.orderBy(term.expression, term.direction)
  const rows = count > page.offset ? ((await query.limit(page.size).offset(page.offset).execute()) as Row[]) : []
  return { page, count, rows }
}

function memoKey(sql: string, parameters: readonly unknown[]): string | null {
  try {
    return `count:${sql}:${JSON.stringify(parameters)}`
  } catch {
    return null
  }
}

/** Maps the rows of a page and wraps them in the envelope of spec 2.1. */
export async function listing<Row, Item>(
  request: FastifyRequest,
  result: { page: ReturnType<typeof resolvePage>; count: number; rows: Row[] },
  toItems: (rows: Row[]) => Promise<Item[]> | Item[],
): Promise<Envelope<Item>> {
  const items = await toItems(result.rows)
  return envelope(request, result.page, result.count, items)
}
