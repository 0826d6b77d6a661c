/**
 * Representative columns of a group, by Pol.is's statistics (math/repness.clj, math/stats.clj): how much more the
 * group agrees (or disagrees) than the other groups pooled, kept when both a one-proportion test (the group's own
 * rate against ½) and a two-proportion test (the group against the rest) pass one-sided at 90% (z > 1.2816).
 */

import type { RepresentativeColumn } from './types.ts'

/** z of a one-sided 90% test. */
export const Z_90 = 1.2816

/** One-proportion test with a pseudocount: 2·√(n+1)·((successes+1)/(n+1) − ½). */
export function proportionTest(successes: number, trials: number): number {
  return 2 * Math.sqrt(trials + 1) * ((successes + 1) / (trials + 1) - 0.5)
}

/** Two-proportion z-test with 1 added to every count; 0 when the pooled rate is 1 (the test is undefined there). */
export function twoProportionTest(successesIn: number, successesOut: number, trialsIn: number, trialsOut: number): number {
  const [si, so, ti, to] = [successesIn + 1, successesOut + 1, trialsIn + 1, trialsOut + 1]
  const pooled = (si + so) / (ti + to)
  if (pooled === 1) return 0
  return (si / ti - so / to) / Math.sqrt(pooled * (1 - pooled) * (1 / ti + 1 / to))
}

export interface VoteCounts {
  agree: number
  disagree: number
  seen: number
}

/** Pol.is's statistics of one column for one group against the other groups pooled. */
export interface ColumnRepness {
  na: number
  nd: number
  ns: number
  /** Smoothed agree and disagree rates (n + 1) / (seen + 2). */
  pa: number
  pd: number
  /** One-proportion tests of those rates against ½. */
  pat: number
  pdt: number
  /** The group's smoothed rate over the rest's smoothed rate. */
  ra: number
  rd: number
  /** Two-proportion tests, group against rest. */
  rat: number
  rdt: number
}

export function columnRepness(group: VoteCounts, rest: VoteCounts): ColumnRepness {
  const { agree: na, disagree: nd, seen: ns } = group
  const pa = (na + 1) / (ns + 2)
  const pd = (nd + 1) / (ns + 2)
  return {
    na,
    nd,
    ns,
    pa,
    pd,
    pat: proportionTest(na, ns),
    pdt: proportionTest(nd, ns),
    ra: pa / ((rest.agree + 1) / (rest.seen + 2)),
    rd: pd / ((rest.disagree + 1) / (rest.seen + 2)),
    rat: twoProportionTest(na, rest.agree, ns, rest.seen),
    rdt: twoProportionTest(nd, rest.disagree, ns, rest.seen),
  }
}

export const passesTests = (s: ColumnRepness) => (s.rat > Z_90 && s.pat > Z_90) || (s.rdt > Z_90 && s.pdt > Z_90)

/** A representative column as the selection ranks it: the result's, before it is named by its key. */
export type RepresentativeStats = Omit<RepresentativeColumn, 'key'>

/** The side the group stands out on: agree when its agree test beats its disagree test. */
export function finalise(column: number, s: ColumnRepness, bestAgree = false): RepresentativeStats {
  const agree = s.rat > s.rdt
  const [nSuccess, pSuccess, pTest, repness, repnessTest] = agree ? [s.na, s.pa, s.pat, s.ra, s.rat] : [s.nd, s.pd, s.pdt, s.rd, s.rdt]
  const metric = repness * repnessTest * pSuccess * pTest
  return {
    column,
    repfulFor: agree ? 'agree' : 'disagree',
    nSuccess,
    nTrials: s.ns,
    pSuccess,
    pTest,
    repness,
    repnessTest,
    metric,
    bestAgree,
  }
}

/** Pol.is's running choice of the "best agree" column: something the group agrees on, shown first. */
function beatsBestAgree(s: ColumnRepness, best: ColumnRepness | null): boolean {
  if (s.na === 0 && s.nd === 0) return false
  if (best && best.ra > 1) return s.ra * s.rat * s.pa * s.pat > best.ra * best.rat * best.pa * best.pat
  if (best) return s.pa * s.pat > best.pa * best.pat
  return s.pat > Z_90 || (s.ra > 1 && s.pa > 0.5)
}

/**
 * Pol.is's selection: the columns passing the tests, ranked by repness × repnessTest × pSuccess × pTest (the lower
 * column on a tie), the "best agree" column put first, the top `limit`, agrees before disagrees. With none passing:
 * the best agree column, else the column with the highest two-proportion test, so every group shows one.
 */
export function selectRepresentative(stats: readonly ColumnRepness[], limit: number): RepresentativeStats[] {
  const sufficient: RepresentativeStats[] = []
  let best: { column: number; stats: ColumnRepness } | null = null
  let bestAgree: { column: number; stats: ColumnRepness } | null = null
  stats.forEach((s, column) => {
    if (passesTests(s)) sufficient.push(finalise(column, s))
    if (sufficient.length === 0 && (!best || Math.max(s.rat, s.rdt) > Math.max(best.stats.rat, best.stats.rdt))) best = { column, stats: s }
    if (beatsBestAgree(s, bestAgree?.stats ?? null)) bestAgree = { column, stats: s }
  })
  const head = bestAgree as { column: number; stats: ColumnRepness } | null
  const first = head ? [finalise(head.column, head.stats, true)] : []
  if (sufficient.length === 0) {
    const fallback = best as { column: number; stats: ColumnRepness } | null
    return head ? first : fallback ? [finalise(fallback.column, fallback.stats)] : []
  }
  const ranked = sufficient.filter((r) => r.column !== head?.column).sort((a, b) => b.metric - a.metric || a.column - b.column)
  const top = [...first, ...ranked].slice(0, limit)
  return [...top.filter((r) => r.repfulFor === 'agree'), ...top.filter((r) => r.repfulFor === 'disagree')]
}

/** Every group's statistics per column against the others pooled: [group][column]. */
export function groupRepness(
  agree: readonly Int32Array[],
  disagree: readonly Int32Array[],
  seen: readonly Int32Array[],
): ColumnRepness[][] {
  const groups = agree.length
  const columns = groups > 0 ? agree[0].length : 0
  const total = (counts: readonly Int32Array[], j: number) => counts.reduce((sum, c) => sum + c[j], 0)
  return Array.from({ length: groups }, (_, g) =>
    Array.from({ length: columns }, (_, j) =>
      columnRepness(
        { agree: agree[g][j], disagree: disagree[g][j], seen: seen[g][j] },
        { agree: total(agree, j) - agree[g][j], disagree: total(disagree, j) - disagree[g][j], seen: total(seen, j) - seen[g][j] },
      ),
    ),
  )
}
