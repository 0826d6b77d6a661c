import { INT4_MAX } from '../core/integers.ts'

/**
 * A count: a whole number from 0 to the int4 limit, digits alone or grouped by thousands as a spreadsheet
 * saves them ("12,345" inside quotes); surrounding spaces are ignored. Anything else is null.
 */
export function parseCount(text: string): number | null {
  // The common case, plain digits, without a regular expression.
  const n = text.length
  if (n > 0 && n < 10) {
    let value = 0
    let i = 0
    for (; i < n; i++) {
      const c = text.charCodeAt(i) - 48
      if (c < 0 || c > 9) break
      value = value * 10 + c
    }
    if (i === n) return value
  }
  let digits = text
  if (!/^\d+$/.test(digits)) {
    digits = text.trim()
    if (/^\d{1,3}(,\d{3})+$/.test(digits)) digits = digits.replace(/,/g, '')
    else if (!/^\d+$/.test(digits)) return null
  }
  if (digits.length > 10) return null
  const value = Number(digits)
  return value <= INT4_MAX ? value : null
}

/** A real calendar date written YYYY-MM-DD, or null. */
export function parseIsoDate(text: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim())
  if (!match) return null
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  if (year < 1 || date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null
  return match[0]
}

/** A value quoted for a one-line message, shortened when long. */
export function quoted(text: string, max = 40): string {
  const oneLine = text.replace(/\s+/g, ' ')
  return JSON.stringify(oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine)
}
