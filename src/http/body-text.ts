import type { FastifyRequest } from 'fastify'
import { ParseError, UnsupportedMediaType } from '../core/errors.ts'

/** Deeper JSON than any body of this API nests; past it the body is refused before it is parsed. */
export const MAX_JSON_DEPTH = 64

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The charset a Content-Type declares, lower-cased, or null when it declares none. */
function declaredCharset(contentType: string): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType)
  return match ? match[2].toLowerCase() : null
}

/**
 * A body's bytes as text: only UTF-8 is read (another declared charset is 415), and bytes that are not
 * UTF-8 are refused rather than stored as replacement characters.
 */
export function decodeBody(request: FastifyRequest, raw: string | Buffer, kind: 'JSON' | 'Form'): string {
  const contentType = String(request.headers['content-type'] ?? '')
  const charset = declaredCharset(contentType)
  if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') throw UnsupportedMediaType(contentType)
  if (typeof raw === 'string') return raw
  try {
    return utf8.decode(raw)
  } catch {
    throw ParseError(`${kind} parse error - the body is not valid UTF-8.`)
  }
}

/** Counts bracket depth outside strings, so a hostile nesting is refused without recursion anywhere. */
export function refuseDeepNesting(source: string): void {
  let depth = 0
  let inString = false
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) throw ParseError(`JSON parse error - nested deeper than ${MAX_JSON_DEPTH} levels.`)
    } else if (c === 0x7d || c === 0x5d) depth--
  }
}

/** Percent-decoding that refuses escapes spelling bytes that are not UTF-8; a stray `%` stays as it is. */
function decodeFormComponent(text: string): string {
  const plain = text.replace(/\+/g, ' ')
  if (!plain.includes('%')) return plain
  const bytes: number[] = []
  const encoder = new TextEncoder()
  for (let i = 0; i < plain.length; i++) {
    if (plain[i] === '%' && /^[0-9a-fA-F]{2}$/.test(plain.slice(i + 1, i + 3))) {
      bytes.push(parseInt(plain.slice(i + 1, i + 3), 16))
      i += 2
    } else {
      const code = plain.codePointAt(i)!
      const char = String.fromCodePoint(code)
      bytes.push(...encoder.encode(char))
      i += char.length - 1
    }
  }
  try {
    return utf8.decode(Uint8Array.from(bytes))
  } catch {
    throw ParseError('Form parse error - a field is not valid UTF-8.')
  }
}

/** form-urlencoded fields, as Django's QueryDict reads them: a repeated key becomes a list. */
export function parseForm(text: string): Record<string, string | string[]> {
  // No prototype while filling, so a `__proto__` field is a field like any other.
  const fields: Record<string, string | string[]> = Object.create(null)
  for (const pair of text.split('&')) {
    if (pair === '') continue
    const split = pair.indexOf('=')
    const key = decodeFormComponent(split < 0 ? pair : pair.slice(0, split))
    const value = split < 0 ? '' : decodeFormComponent(pair.slice(split + 1))
    const existing = fields[key]
    fields[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  return { ...fields }
}
