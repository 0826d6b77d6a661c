import type { FastifyRequest } from 'fastify'
import { InvalidPage } from '../core/errors.ts'
import { readInteger } from '../core/integers.ts'
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, pageCount, type ListRequest, type PageRequest } from '../db/paging.ts'
import { baseUrl } from './urls.ts'

/**
 * DRF PageNumberPagination: `page` from 1 (or `last`, resolved once the count is known); anything else
 * that is not a positive integer is an invalid page. A bad `page_size` falls back to the default.
 */
export function pageRequest(query: Record<string, unknown>): PageRequest & { last: boolean } {
  const rawSize = query.page_size
  let size = DEFAULT_PAGE_SIZE
  const sizeReading = typeof rawSize === 'string' ? readInteger(rawSize, 'query', { minimum: 1, maximum: Infinity }) : null
  if (sizeReading?.ok) size = Math.min(sizeReading.value, MAX_PAGE_SIZE)
  const rawPage = query.page
  if (rawPage === undefined || rawPage === '') return { page: 1, size, offset: 0, last: false }
  if (rawPage === 'last') return { page: 1, size, offset: 0, last: true }
  const pageReading = readInteger(rawPage, 'query', { minimum: 1, maximum: 1e9 })
  if (!pageReading.ok) throw InvalidPage()
  const page = pageReading.value
  return { page, size, offset: (page - 1) * size, last: false }
}

export interface Envelope<T> {
  count: number
  next: string | null
  previous: string | null
  next_id: number | null
  previous_id: number | null
  results: T[]
}

/** Query string of the request, re-encoded in sorted order as DRF does, with `page` replaced. */
function pageUrl(request: FastifyRequest, page: number): string {
  const path = request.url.split('?')[0]
  const params = new URLSearchParams(request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '')
  const entries = [...params.entries()].filter(([key]) => key !== 'page')
  if (page > 1) entries.push(['page', String(page)])
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const query = new URLSearchParams(entries).toString()
  return `${baseUrl(request)}${path}${query ? `?${query}` : ''}`
}

/** Checks the page against the count (an empty first page is fine) and builds the envelope. */
export function envelope<T>(request: FastifyRequest, page: PageRequest, count: number, results: T[]): Envelope<T> {
  const pages = pageCount(count, page.size)
  if (page.page > pages) throw InvalidPage()
  const hasNext = page.page < pages
  const hasPrevious = page.page > 1
  return {
    count,
    next: hasNext ? pageUrl(request, page.page + 1) : null,
    previous: hasPrevious ? pageUrl(request, page.page - 1) : null,
    next_id: hasNext ? page.page + 1 : null,
    previous_id: hasPrevious ? page.page - 1 : null,
    results,
  }
}

/**
 * The page, ordering and count memo a listing request asks for, as its repository takes them. The page is read
 * when the repository first asks for it, after its filters: as in DRF, a bad filter answers 400 before a bad page.
 */
export function listRequestOf(request: FastifyRequest): ListRequest {
  const query = (request.query ?? {}) as Record<string, unknown>
  return {
    get page() {
      return pageRequest(query)
    },
    ordering: typeof query.ordering === 'string' ? query.ordering : undefined,
    counts: request.server.responseCache,
  }
}
