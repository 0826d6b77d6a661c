import type { Caller } from '../../core/caller.ts'
import { fieldError } from '../../core/errors.ts'
import { INT4_MAX, readInteger } from '../../core/integers.ts'
import { column, type OrderTerm } from '../../db/ordering.ts'
import { nullsLast } from './compare.repository.ts'

/**
 * The users filter `compare_check=<user id>,<minimum common questions>[,<field>]` (client call 28): the people
 * that user compared themselves with (user_compares), with at least that many common questions, ordered by the
 * field. Kept comparisons are the comparer's own: for anyone else the filter matches nobody.
 */
export interface CompareCheck {
  userId: number
  minimum: number
  /** Whether the caller may see that user's comparisons (they are that user). */
  visible: boolean
  order: OrderTerm
}

const FIELDS: Record<string, string> = {
  compares__difference_percent: 'user_compares.difference_percent',
  compares__questions_counted: 'user_compares.questions_counted',
  compares__modified_at: 'user_compares.modified_at',
}

const MALFORMED =
  'Expected "<user id>,<minimum common questions>,<field>" with field compares__difference_percent, ' +
  'compares__questions_counted or compares__modified_at (a leading - reverses).'

/** Null when the filter is absent or empty; 400 naming compare_check when it cannot be read. */
export function readCompareCheck(text: string | undefined, caller: Caller | null): CompareCheck | null {
  if (text === undefined || text.trim() === '') return null
  const parts = text.split(',').map((part) => part.trim())
  if (parts.length < 2 || parts.length > 3) throw fieldError('compare_check', MALFORMED)
  const user = readInteger(parts[0], 'query', { minimum: 0, maximum: INT4_MAX })
  const minimum = readInteger(parts[1], 'query', { minimum: 0, maximum: INT4_MAX })
  const field = parts[2] ?? 'compares__difference_percent'
  const descending = field.startsWith('-')
  const name = descending ? field.slice(1) : field
  if (!user.ok || !minimum.ok || !Object.hasOwn(FIELDS, name)) throw fieldError('compare_check', MALFORMED)
  // Nulls (no common question at all) go last either way.
  const expression = name === 'compares__difference_percent' ? nullsLast(FIELDS[name], descending) : column(FIELDS[name])
  return {
    userId: user.value,
    minimum: minimum.value,
    visible: caller?.id === user.value,
    order: { expression, direction: descending ? 'desc' : 'asc' },
  }
}
