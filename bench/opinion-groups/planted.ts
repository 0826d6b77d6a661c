/** The synthetic conversations with planted groups of the opinion-groups benches (the engine's and the database read's). */
import type { OpinionColumn, OpinionInput } from '../../src/engines/opinion-groups/index.ts'
import { seededRandom } from '../../src/core/seeded-random.ts'

export const SCALES = {
  medium: { participants: 7_900, columns: 7_800, answers: 1_000_000, shares: [4, 3, 2, 1] },
  large: { participants: 100_000, columns: 1_000, answers: 10_000_000, shares: [5, 3, 2, 1, 1] },
} as const
export type Scale = keyof typeof SCALES

/**
 * Each planted group leans its own way on each column; an answer is that leaning plus noise, rounded and clipped to
 * −2..2. Columns are picked with a skew (early columns answered more, as in Pol.is), distinct within a row, and
 * each row's answers are in random column order, so the engine's sorting is measured too.
 */
export function generate(scale: Scale): { input: OpinionInput; planted: Int32Array } {
  const { participants, columns, answers, shares } = SCALES[scale]
  const random = seededRandom(2026)
  const total = shares.reduce((a, b) => a + b, 0)
  // Two opinion axes: each column loads on both, each group sits at its own angle on the circle of the two, so the
  // planted groups are apart on a 2-D map (independent random leanings would need more dimensions than two).
  const u = Float64Array.from({ length: columns }, () => 2 * random() - 1)
  const w = Float64Array.from({ length: columns }, () => 2 * random() - 1)
  const leaning = shares.map((_, g) => {
    const angle = (2 * Math.PI * g) / shares.length
    return Float64Array.from({ length: columns }, (_, j) => 2 * (Math.cos(angle) * u[j] + Math.sin(angle) * w[j]))
  })
  const participant = new Int32Array(answers)
  const column = new Int32Array(answers)
  const value = new Int8Array(answers)
  const planted = new Int32Array(participants)
  const taken = new Int32Array(columns).fill(-1)
  let at = 0
  for (let i = 0; i < participants; i++) {
    let pick = random() * total
    let g = 0
    while (pick >= shares[g] && g < shares.length - 1) pick -= shares[g++]
    planted[i] = g
    const count = Math.round(((answers - at) / (participants - i)) * (0.5 + random()))
    const wanted = Math.min(count, columns, answers - at - (participants - i - 1))
    for (let c = 0; c < wanted; c++) {
      let j = Math.floor(columns * random() ** 1.5)
      while (taken[j] === i) j = Math.floor(columns * random())
      taken[j] = i
      participant[at] = i
      column[at] = j
      value[at++] = Math.max(-2, Math.min(2, Math.round(leaning[g][j] + (random() + random() + random() - 1.5) * 2)))
    }
  }
  const columnsInfo: OpinionColumn[] = Array.from({ length: columns }, (_, j) => ({ key: `q${j}`, kind: 'likert', question: j }))
  const accountIds = Float64Array.from({ length: participants }, (_, i) => 10 + ((i * 7919) % 1_000_003))
  return {
    input: {
      accountIds,
      columns: columnsInfo,
      answers: { participant: participant.subarray(0, at), column: column.subarray(0, at), value: value.subarray(0, at) },
    },
    planted,
  }
}
