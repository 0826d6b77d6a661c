import { AsyncLocalStorage } from 'node:async_hooks'

/** Counts the SQL statements a request runs, so tests can see that a listing does not query per row. */
export interface QueryCounter {
  queries: number
}

export const queryCounter = new AsyncLocalStorage<QueryCounter>()

export function countQuery(): void {
  const store = queryCounter.getStore()
  if (store) store.queries += 1
}
