/** Where each participant sits on the map, and who is clustered. */
import type { OpinionMatrix } from './matrix.ts'

/**
 * Pol.is's sparsity-aware projection: a participant's score uses only the columns they answered (the others are 0
 * after centring), then is scaled by √(active columns / answered columns). Without the scaling someone who answered
 * little would sit near the centre only because most of their row is filled with means.
 */
export function sparsityAwarePositions(m: OpinionMatrix, scores: Float64Array): Float64Array {
  const out = new Float64Array(m.rows)
  for (let row = 0; row < m.rows; row++) {
    const answered = m.rowStart[row + 1] - m.rowStart[row]
    out[row] = answered === 0 ? 0 : scores[row] * Math.sqrt(m.activeColumns / answered) + 0
  }
  return out
}

/**
 * Pol.is's rule: clustered once they answered at least min(minAnswered, questions with answers) questions; when
 * fewer than minClustered qualify, the most active others are added (most answers first, then lower account id)
 * until there are minClustered, so a young conversation still has groups. Unlike Pol.is, nobody stays in because
 * they once qualified: the result depends on the answers only, not on the history of recomputes.
 */
export function clusteredRows(m: OpinionMatrix, minAnswered: number, minClustered: number): Int32Array {
  const needed = Math.min(minAnswered, m.activeQuestions)
  const qualified: number[] = []
  const others: number[] = []
  for (let row = 0; row < m.rows; row++) {
    const answered = m.answeredQuestions[row]
    if (answered === 0) continue
    if (answered >= needed) qualified.push(row)
    else others.push(row)
  }
  if (qualified.length < minClustered) {
    // Rows are in account-id order, and the sort is stable, so equal counts keep the lower account id first.
    others.sort((a, b) => m.answeredQuestions[b] - m.answeredQuestions[a])
    qualified.push(...others.slice(0, minClustered - qualified.length))
    qualified.sort((a, b) => a - b)
  }
  return Int32Array.from(qualified)
}
