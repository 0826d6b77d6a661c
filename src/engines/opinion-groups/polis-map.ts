/**
 * The map as Pol.is's code drew it at a given date (compdemocracy/polis, math/src/polismath/math/conversation.clj),
 * for conversations that come from Pol.is: its published groups were computed on that map.
 * - Until 2017-02-27 (commit b68ca8b6) moderated-out statements were ordinary columns, their votes counted; from
 *   then on they and the meta ones are columns of zeros, whose zeros count as answered in the sparsity-aware
 *   scaling (`OpinionInput.zeroed`).
 * - Until 2017-10-21 (commit 90b5b9e6) missing votes were 0; since then the column's mean.
 * - From 2017-02-27 to 2017-10-31 (commit 30355e11) who is grouped was counted on the zeroed matrix, so everyone
 *   counted every zeroed statement as answered.
 */
import type { OpinionMap } from './types.ts'

/** The service's own map: missing cells hold the column mean, zeroed statements count as each person answered them. */
export const SERVICE_MAP: OpinionMap = { missing: 'mean', zeroedCountAsAnswered: false }

export interface PolisCode {
  /** Moderated-out and meta statements: columns of zeros (from 2017-02-27), or ordinary columns (before). */
  hidden: 'zeroed' | 'columns'
  map: OpinionMap
}

const ZEROED_FROM = Date.UTC(2017, 1, 27)
const MEAN_FILL_FROM = Date.UTC(2017, 9, 22)
const ZEROED_COUNTED_UNTIL = Date.UTC(2017, 10, 1)

/** Pol.is's code at `date` (a conversation's last activity: its latest comment or vote). */
export function polisCodeAt(date: Date): PolisCode {
  const t = date.getTime()
  if (Number.isNaN(t)) throw new RangeError('polisCodeAt needs a valid date')
  return {
    hidden: t < ZEROED_FROM ? 'columns' : 'zeroed',
    map: { missing: t < MEAN_FILL_FROM ? 'zero' : 'mean', zeroedCountAsAnswered: t >= ZEROED_FROM && t < ZEROED_COUNTED_UNTIL },
  }
}
