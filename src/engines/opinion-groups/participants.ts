/** Where each participant sits on the map, and who is clustered. */
import type { OpinionMatrix } from './matrix.ts'

/**
 * Pol.is's sparsity-aware projection: a participant's score uses only the columns they answered (the others are 0
 * after centring), then is scaled by √(active columns / answered columns). Without the scaling someone who answered
 * little would sit near the centre only because most of their row is filled with means. Zeroed statements count
 * in both, for everyone, as in Pol.is's code (its zeroed cells are 0, not missing): they damp the scaling.
 */
export function sparsityAwarePositions(m: OpinionMatrix, scores: Float64Array): Float64Array {
  const out = new Float64Array(m.rows)
  const width = m.activeColumns + m.zeroedStatements
  for (let row = 0; row < m.rows; row++) {
    const answered = m.rowStart[row + 1] - m.rowStart[row] + m.zeroedStatements
    out[row] = answered === 0 ? 0 : scores[row] * Math.sqrt(width / answered) + 0
  }
  return out
}

/**
 * Pol.is's rule: clustered once they answered at least min(minAnswered, questions with answers) questions; when
 * fewer than minClustered qualify, the most active others are added (most answers first, then lower account id)
 * until there are minClustered, so a young conversation still has groups. Unlike Pol.is, nobody stays in because
 * they once qualified: the result depends on the answers only, not on the history of recomputes.
 *
 * Zeroed statements count as questions, and a participant's answers to them as answers; with
 * `zeroedCountAsAnswered` everyone counts as having answered them all (Pol.is from 2017-02-27 to 2017-10-31, which
 * counted the zeroed matrix's cells).
 */
export function clusteredRows(m: OpinionMatrix, minAnswered: number, minClustered: number, zeroedCountAsAnswered = false): Int32Array {
  const needed = Math.min(minAnswered, m.activeQuestions + m.zeroedStatements)
  const answeredOf = (row: number) =>
    m.answeredQuestions[row] + (zeroedCountAsAnswered && m.zeroedStatements > 0 ? m.zeroedStatements : m.zeroedAnswered[row])
  const qualified: number[] = []
  const others: number[] = []
  for (let row = 0; row < m.rows; row++) {
    const answered = answeredOf(row)
    if (m.answeredQuestions[row] + m.zeroedAnswered[row] === 0) continue
    if (answered >= needed) qualified.push(row)
    else others.push(row)
  }
  if (qualified.length < minClustered) {
    // Rows are in account-id order, and the sort is stable, so equal counts keep the lower account id first.
    others.sort((a, b) => answeredOf(b) - answeredOf(a))
    qualified.push(...others.slice(0, minClustered - qualified.length))
    qualified.sort((a, b) => a - b)
  }
  return Int32Array.from(qualified)
}
