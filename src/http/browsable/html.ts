import { escapeMarkup } from '../../core/markup.ts'

/** Every value that reaches a page passes through here: text from the database is shown, never interpreted. */
export const escapeHtml = escapeMarkup

/** The query parameters a browsable page passes on to every link: the format and, when given, the application key. */
export type Kept = Record<string, string>

export function keptParameters(query: Record<string, unknown> | undefined): Kept {
  const kept: Kept = { format: 'api' }
  const key = query?.AppAuthorization
  if (typeof key === 'string' && key) kept.AppAuthorization = key
  return kept
}

/** A URL of this service with the kept parameters added (those it already has stay as they are). */
export function withKept(url: string, kept: Kept, ownOrigins: Set<string>): string {
  let parsed: URL
  try {
    parsed = new URL(url, 'http://relative.invalid')
  } catch {
    return url
  }
  const relative = parsed.origin === 'http://relative.invalid'
  if (!relative && !ownOrigins.has(parsed.origin)) return url
  for (const [name, value] of Object.entries(kept)) if (!parsed.searchParams.has(name)) parsed.searchParams.set(name, value)
  return relative ? parsed.pathname + parsed.search + parsed.hash : parsed.href
}

/** Indented JSON, escaped, with every URL in it a link that keeps the page's format and key. */
export function linkifyJson(json: string, link: (url: string) => string): string {
  let out = ''
  let last = 0
  for (const match of json.matchAll(/"(?:[^"\\]|\\.)*"/g)) {
    out += escapeHtml(json.slice(last, match.index))
    last = match.index + match[0].length
    let value: unknown
    try {
      value = JSON.parse(match[0])
    } catch {
      value = null
    }
    if (typeof value === 'string' && /^https?:\/\/\S+$/.test(value)) {
      out += `"<a href="${escapeHtml(link(value))}">${escapeHtml(match[0].slice(1, -1))}</a>"`
    } else {
      out += escapeHtml(match[0])
    }
  }
  return out + escapeHtml(json.slice(last))
}
