import type { FastifyRequest } from 'fastify'
import { InvalidPage } from './errors.ts'
import { readInteger } from './integers.ts'
import { baseUrl } from './urls.ts'

export const DEFAULT_PAGE_SIZE = 10
export const MAX_PAGE_SIZE = 100

export interface PageRequest {
  page: number
  size: number
  offset: number
}

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

export function pageCount(count: number, size: number): number {
  return Math.max(1, Math.ceil(count / size))
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

/** Resolves `page=last` once the count is known. */
export function resolvePage(page: PageRequest & { last: boolean }, count: number): PageRequest {
  if (!page.last) return page
  const last = pageCount(count, page.size)
  return { page: last, size: page.size, offset: (last - 1) * page.size }
}
