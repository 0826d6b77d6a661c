import { likertFigures, type LevelCounts } from '../../statistics/compute/likert.ts'

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum'] as const

export type DirectFamily = Record<`direct_${(typeof LEVELS)[number] | 'vote_count' | 'sum' | 'value' | 'consensus' | 'heat'}`, number>

/**
 * The direct family after one vote changes: the level counts move by the removed and added values,
 * and every float follows from the new counts, exactly as a recomputation from all votes gives them.
 */
export function directFamilyAfter(stored: Record<string, unknown>, removed: number | null, added: number | null): DirectFamily {
  const counts = LEVELS.map((level) => Number(stored[`direct_${level}`])) as number[]
  if (removed !== null) counts[removed - 1] -= 1
  if (added !== null) counts[added - 1] += 1
  const figures = likertFigures(counts as unknown as LevelCounts)
  const family: Record<string, number> = {}
  LEVELS.forEach((level, index) => (family[`direct_${level}`] = counts[index]))
  for (const name of ['vote_count', 'sum', 'value', 'consensus', 'heat'] as const) family[`direct_${name}`] = figures[name]
  return family as DirectFamily
}
