/** Each group's answers per column: agree, disagree, seen, and the mean value. */
import type { OpinionMatrix } from './matrix.ts'

export interface GroupVotes {
  /** [group][column] counts over the group's members. */
  agree: Int32Array[]
  disagree: Int32Array[]
  seen: Int32Array[]
  /** [group][column] mean value over the members who answered; NaN with none. */
  mean: Float64Array[]
}

/**
 * One pass over the answers of the grouped participants (group ≥ 0 by row; −1 is not grouped, as in Pol.is, whose
 * group figures count in-conversation participants only). Agree and disagree are the matrix's stances: likert 4–5
 * and 1–2 (3 is seen only), a choice chosen or another choice of the question chosen.
 */
export function groupVotes(m: OpinionMatrix, groupOfRow: Int32Array, groups: number): GroupVotes {
  const make = () => Array.from({ length: groups }, () => new Int32Array(m.columns))
  const agree = make()
  const disagree = make()
  const seen = make()
  const centredSum = Array.from({ length: groups }, () => new Float64Array(m.columns))
  for (let row = 0; row < m.rows; row++) {
    const g = groupOfRow[row]
    if (g < 0) continue
    const a = agree[g]
    const d = disagree[g]
    const s = seen[g]
    const sum = centredSum[g]
    for (let k = m.rowStart[row]; k < m.rowStart[row + 1]; k++) {
      const j = m.column[k]
      s[j]++
      if (m.stance[k] > 0) a[j]++
      else if (m.stance[k] < 0) d[j]++
      sum[j] += m.centred[k]
    }
  }
  // The members' mean is the column's centre plus their mean centred value.
  const mean = centredSum.map((sum, g) => sum.map((total, j) => (seen[g][j] > 0 ? m.center[j] + total / seen[g][j] : NaN)))
  return { agree, disagree, seen, mean }
}
