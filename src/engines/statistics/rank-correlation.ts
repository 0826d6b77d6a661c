/**
 * Association between two answers given by the same people, from their cross-tabulation alone (counts[i][j]: people
 * in row category i and column category j). Pure: plain arrays in, plain objects out. docs/statistics.md,
 * "Comparing two questions".
 */

/** A table of counts, rows x columns; every row the same length; non-negative integers. */
export type CountTable = readonly (readonly number[])[]

export interface KendallTauB {
  /** People in the table. */
  n: number
  /** Pairs of people ordered the same way on both questions. */
  concordant: number
  /** Pairs ordered opposite ways. */
  discordant: number
  /** (concordant − discordant) / √((n₀ − n₁)(n₀ − n₂)); null when either question has a single level among the people. */
  estimate: number | null
  /** S / √Var(S) under independence, with the variance corrected for ties; null with the estimate or a zero variance. */
  z: number | null
  /** Two-sided p-value of z on the normal distribution; null with z. */
  pValue: number | null
}

export interface CramersV {
  n: number
  /** Pearson's χ² over the rows and columns that have people (no continuity correction). */
  chiSquare: number | null
  /** (rows with people − 1)(columns with people − 1). */
  df: number | null
  /** √(χ² / (n (min(rows, columns) − 1))), 0..1; null with fewer than two rows or columns with people. */
  estimate: number | null
}

const rowTotals = (counts: CountTable) => counts.map((row) => row.reduce((sum, c) => sum + c, 0))
const columnTotals = (counts: CountTable) => (counts[0] ?? []).map((_, j) => counts.reduce((sum, row) => sum + row[j], 0))

/** Σ t(t−1)(t−2)… over the tie groups t, for the tie terms of Var(S). */
const sumOver = (totals: number[], term: (t: number) => number) => totals.reduce((sum, t) => sum + term(t), 0)

/**
 * Kendall's tau-b of two ordinal answers from their cross-tabulation, rows and columns in their order. Each pair of
 * cells (i, j), (k, l) with k > i contributes n_ij·n_kl concordant pairs when l > j and discordant ones when l < j;
 * pairs tied on either answer count in neither. O(cells²) and exact in integers up to 2⁵³ pairs. The test is the
 * normal approximation with the tie-corrected variance of S (Kendall 1970), as R's cor.test(method = "kendall",
 * exact = FALSE) computes it, without continuity correction.
 */
export function kendallTauB(counts: CountTable): KendallTauB {
  const rows = counts.length
  const columns = counts[0]?.length ?? 0
  let concordant = 0
  let discordant = 0
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < columns; j++) {
      const here = counts[i][j]
      if (here === 0) continue
      for (let k = i + 1; k < rows; k++)
        for (let l = 0; l < columns; l++) {
          if (l > j) concordant += here * counts[k][l]
          else if (l < j) discordant += here * counts[k][l]
        }
    }
  const byRow = rowTotals(counts)
  const byColumn = columnTotals(counts)
  const n = byRow.reduce((sum, t) => sum + t, 0)
  const pairs = (t: number) => (t * (t - 1)) / 2
  const n0 = pairs(n)
  const untiedRows = n0 - sumOver(byRow, pairs)
  const untiedColumns = n0 - sumOver(byColumn, pairs)
  const none = { n, concordant, discordant, estimate: null, z: null, pValue: null }
  if (untiedRows <= 0 || untiedColumns <= 0) return none
  const s = concordant - discordant
  const estimate = s / Math.sqrt(untiedRows * untiedColumns)

  const v0 = n * (n - 1) * (2 * n + 5)
  const vt = sumOver(byRow, (t) => t * (t - 1) * (2 * t + 5))
  const vu = sumOver(byColumn, (t) => t * (t - 1) * (2 * t + 5))
  const v1 = sumOver(byRow, (t) => t * (t - 1)) * sumOver(byColumn, (t) => t * (t - 1))
  const v2 = sumOver(byRow, (t) => t * (t - 1) * (t - 2)) * sumOver(byColumn, (t) => t * (t - 1) * (t - 2))
  // With n < 3 no three people tie, so the last term is 0 (its denominator too).
  const variance = (v0 - vt - vu) / 18 + v1 / (2 * n * (n - 1)) + (n < 3 ? 0 : v2 / (9 * n * (n - 1) * (n - 2)))
  if (!(variance > 0)) return { ...none, estimate }
  const z = s / Math.sqrt(variance)
  return { n, concordant, discordant, estimate, z, pValue: twoSidedNormalP(z) }
}

/**
 * Cramér's V of two answers, categories unordered: Pearson's χ² of independence over the rows and columns that
 * have people (an empty category has no expected count), scaled to 0..1.
 */
export function cramersV(counts: CountTable): CramersV {
  const byRow = rowTotals(counts)
  const byColumn = columnTotals(counts)
  const n = byRow.reduce((sum, t) => sum + t, 0)
  const rows = byRow.flatMap((t, i) => (t > 0 ? [i] : []))
  const columns = byColumn.flatMap((t, j) => (t > 0 ? [j] : []))
  const smaller = Math.min(rows.length, columns.length)
  if (smaller < 2) return { n, chiSquare: null, df: null, estimate: null }
  let chiSquare = 0
  for (const i of rows)
    for (const j of columns) {
      const expected = (byRow[i] * byColumn[j]) / n
      chiSquare += (counts[i][j] - expected) ** 2 / expected
    }
  return { n, chiSquare, df: (rows.length - 1) * (columns.length - 1), estimate: Math.sqrt(chiSquare / (n * (smaller - 1))) }
}

/** P(|Z| ≥ |z|) for a standard normal Z: erfc(|z| / √2). */
export function twoSidedNormalP(z: number): number {
  return Math.min(1, erfc(Math.abs(z) / Math.SQRT2))
}

/*
 * erfc for x ≥ 0 by W. J. Cody's rational Chebyshev approximations (Math. Comp. 23, 1969, 631–638; the SPECFUN
 * coefficients, as the doubles nearest their published 18 digits), relative error near 1e-16 in double precision.
 */
const ERF_A = [3.1611237438705655, 113.86415415105016, 377.485237685302, 3209.3775891384694, 0.18577770618460315]
const ERF_B = [23.601290952344122, 244.02463793444417, 1282.6165260773723, 2844.236833439171]
const ERFC_C = [
  0.5641884969886701, 8.883149794388377, 66.11919063714163, 298.6351381974001, 881.952221241769, 1712.0476126340707, 2051.0783778260716,
  1230.3393547979972, 2.1531153547440383e-8,
]
const ERFC_D = [
  15.744926110709835, 117.6939508913125, 537.1811018620099, 1621.3895745666903, 3290.7992357334597, 4362.619090143247, 3439.3676741437216,
  1230.3393548037495,
]
const ERFC_P = [
  0.30532663496123236, 0.36034489994980445, 0.12578172611122926, 0.016083785148742275, 0.0006587491615298378, 0.016315387137302097,
]
const ERFC_Q = [2.568520192289822, 1.8729528499234604, 0.5279051029514285, 0.06051834131244132, 0.0023352049762686918]
const ONE_OVER_SQRT_PI = 0.5641895835477563

/** exp(−x²) without losing the low bits of x² (Cody's split of x into a part exact in 4 bits and the rest). */
function expMinusSquare(x: number): number {
  const head = Math.trunc(x * 16) / 16
  return Math.exp(-head * head) * Math.exp(-(x - head) * (x + head))
}

export function erfc(x: number): number {
  if (x < 0) return 2 - erfc(-x)
  if (x <= 0.46875) {
    const y = x * x
    let num = ERF_A[4] * y
    let den = y
    for (let i = 0; i < 3; i++) {
      num = (num + ERF_A[i]) * y
      den = (den + ERF_B[i]) * y
    }
    return 1 - (x * (num + ERF_A[3])) / (den + ERF_B[3])
  }
  if (x <= 4) {
    let num = ERFC_C[8] * x
    let den = x
    for (let i = 0; i < 7; i++) {
      num = (num + ERFC_C[i]) * x
      den = (den + ERFC_D[i]) * x
    }
    return (expMinusSquare(x) * (num + ERFC_C[7])) / (den + ERFC_D[7])
  }
  if (x >= 26.543) return 0
  const y = 1 / (x * x)
  let num = ERFC_P[5] * y
  let den = y
  for (let i = 0; i < 4; i++) {
    num = (num + ERFC_P[i]) * y
    den = (den + ERFC_Q[i]) * y
  }
  const tail = (y * (num + ERFC_P[4])) / (den + ERFC_Q[4])
  return (expMinusSquare(x) * (ONE_OVER_SQRT_PI - tail)) / x
}
