/** Counts per rating level 1..5 (minimum, low, medium, high, maximum). Skips are never in here. */
export type LevelCounts = readonly [number, number, number, number, number]

export interface LikertFigures {
  vote_count: number
  sum: number
  value: number
  consensus: number
  heat: number
  polarisation: number
}

export function likertFigures(counts: LevelCounts): LikertFigures {
  throw new Error('not written yet')
}
