/**
 * The first two principal components of the centred answers (matrix.ts), deterministic and iterated to a tight
 * tolerance: they equal R's prcomp on the filled, centred matrix. The method is Pol.is's power iteration with
 * deflation, run on both vectors at once (block power iteration): each step multiplies the pair by CᵀC in one pass
 * over the answers, deflates the second against the first (Gram–Schmidt, which for the product C(I − v₁v₁ᵀ) is what
 * Pol.is does to the data rows), and rotates the pair inside their plane to the eigenvectors of CᵀC restricted to it
 * (Rayleigh–Ritz). One vector after the other, the first component converges at the rate λ₂/λ₁: with two groups of
 * similar weight λ₁ ≈ λ₂ and it took 1,400 steps (150 s) on 10 M answers; the pair converges at λ₃/λ₂ instead.
 *
 * A product row by row: s = row·v, then out += s·row, so a step costs O(answers) and the dense matrix is never made.
 */
import type { OpinionMatrix } from './matrix.ts'
import { seededRandom } from '../../core/seeded-random.ts'

export interface PcaOptions {
  /** Stop when the estimated error of each unit component is below this. */
  tolerance: number
  maxIterations: number
  /** Warm start (the previous result's components); null or all-zero starts cold. */
  start?: readonly (Float64Array | null)[]
  seed: number
}

export interface PcaResult {
  /** Two unit loading vectors; a zero vector for a component with no variance. */
  components: [Float64Array, Float64Array]
  /** Eigenvalues of CᵀC (variance × (rows − 1)). */
  eigenvalues: [number, number]
  iterations: number
  converged: boolean
}

/**
 * With missing cells as 0, row r of the centred matrix is a_r − c (its answers, then every column's centre c taken
 * off): C v = A v − (c·v) per row, and Cᵀs = Aᵀs − c Σs. `answer` gives a_r at an answered cell from its centred value.
 */
const answerOf = (m: OpinionMatrix, k: number) => m.centred[k] - m.missing![m.column[k]]

/** out = CᵀC v, in one pass over the answers. */
export function gramTimes(m: OpinionMatrix, v: Float64Array, out: Float64Array): void {
  const zero = new Float64Array(v.length)
  gramTimesPair(m, v, zero, out, new Float64Array(v.length))
}

/** outA = CᵀC a and outB = CᵀC b in the same pass over the answers. */
function gramTimesPair(m: OpinionMatrix, a: Float64Array, b: Float64Array, outA: Float64Array, outB: Float64Array): void {
  if (m.missing) return gramTimesPairFilled(m, m.missing, a, b, outA, outB)
  const { rowStart, column, centred } = m
  outA.fill(0)
  outB.fill(0)
  for (let row = 0; row < m.rows; row++) {
    const end = rowStart[row + 1]
    let sa = 0
    let sb = 0
    for (let k = rowStart[row]; k < end; k++) {
      const c = centred[k]
      const j = column[k]
      sa += c * a[j]
      sb += c * b[j]
    }
    for (let k = rowStart[row]; k < end; k++) {
      const c = centred[k]
      const j = column[k]
      outA[j] += c * sa
      outB[j] += c * sb
    }
  }
}

/** The same where a missing cell is `missing[j]` after centring (−centre: missing cells held 0). */
function gramTimesPairFilled(
  m: OpinionMatrix,
  missing: Float64Array,
  a: Float64Array,
  b: Float64Array,
  outA: Float64Array,
  outB: Float64Array,
) {
  const { rowStart, column } = m
  outA.fill(0)
  outB.fill(0)
  // Every row is (its answers) + missing, the answers taken as a − missing at their cells.
  const missingA = dot(missing, a)
  const missingB = dot(missing, b)
  let sumA = 0
  let sumB = 0
  for (let row = 0; row < m.rows; row++) {
    const end = rowStart[row + 1]
    let sa = missingA
    let sb = missingB
    for (let k = rowStart[row]; k < end; k++) {
      const c = answerOf(m, k)
      const j = column[k]
      sa += c * a[j]
      sb += c * b[j]
    }
    for (let k = rowStart[row]; k < end; k++) {
      const c = answerOf(m, k)
      const j = column[k]
      outA[j] += c * sa
      outB[j] += c * sb
    }
    sumA += sa
    sumB += sb
  }
  for (let j = 0; j < missing.length; j++) {
    outA[j] += missing[j] * sumA
    outB[j] += missing[j] * sumB
  }
}

/**
 * Each row's centred answers times the loadings, over the cells it answered: the scores C v when missing cells hold
 * the mean (they are 0 after centring), and the sum Pol.is's sparsity-aware projection scales either way.
 */
export function scores(m: OpinionMatrix, v: Float64Array): Float64Array {
  const out = new Float64Array(m.rows)
  for (let row = 0; row < m.rows; row++) {
    let s = 0
    for (let k = m.rowStart[row]; k < m.rowStart[row + 1]; k++) s += m.centred[k] * v[m.column[k]]
    out[row] = s
  }
  return out
}

const dot = (a: Float64Array, b: Float64Array) => {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i] * b[i]
  return s
}

/** Scales v to unit length; false when it has none. */
function normalise(v: Float64Array): boolean {
  const length = Math.sqrt(dot(v, v))
  if (!(length > 0)) return false
  for (let i = 0; i < v.length; i++) v[i] /= length
  return true
}

/** first normalised, second deflated against it and normalised; false for a vector with nothing left (then 0). */
function orthonormalise(first: Float64Array, second: Float64Array): [boolean, boolean] {
  const one = normalise(first)
  if (one) {
    const along = dot(first, second)
    for (let i = 0; i < second.length; i++) second[i] -= along * first[i]
  }
  const two = normalise(second)
  if (!two) second.fill(0)
  return [one, two]
}

/**
 * Sign rule: the loading of largest magnitude is positive (the first such column on a tie). A component's sign is
 * arbitrary; this one depends only on the data, not on the start, so warm and cold runs agree.
 */
export function fixSign(v: Float64Array): void {
  let largest = 0
  for (let i = 1; i < v.length; i++) if (Math.abs(v[i]) > Math.abs(v[largest])) largest = i
  if (v[largest] < 0) for (let i = 0; i < v.length; i++) v[i] = -v[i] + 0
}

/**
 * The cold start: seeded uniform values in −0.5..1.5. A fixed vector such as all ones can be orthogonal to the first
 * component when the data are symmetric (two opposite groups); a seeded random one practically never is.
 */
function coldStart(columns: number, random: () => number): Float64Array {
  return Float64Array.from({ length: columns }, () => 2 * random() - 0.5)
}

/**
 * Stopping rule: with change δ_t = ‖v_t − v_{t−1}‖ shrinking by a ratio ρ per step, the distance to the limit is
 * about δ_t·ρ/(1 − ρ); stop when that is under the tolerance, or when δ_t is at rounding level.
 */
function settled(change: number, previousChange: number, tolerance: number): boolean {
  if (change < 1e-14) return true
  if (!Number.isFinite(previousChange)) return false
  const ratio = change / previousChange
  return ratio < 1 && (change * ratio) / (1 - ratio) < tolerance
}

/** ‖v − previous‖ with previous's sign turned to match v (a Ritz vector's sign is arbitrary from step to step). */
function changeOf(v: Float64Array, previous: Float64Array): number {
  const sign = dot(v, previous) < 0 ? -1 : 1
  let sum = 0
  for (let i = 0; i < v.length; i++) sum += (v[i] - sign * previous[i]) ** 2
  return Math.sqrt(sum)
}

/** A second eigenvalue this small next to the first is rounding: that component has no variance. */
const NEGLIGIBLE = 1e-20

export function principalComponents(m: OpinionMatrix, options: PcaOptions): PcaResult {
  const n = m.columns
  const random = seededRandom(options.seed)
  // Both cold vectors are drawn either way, so a warm start never shifts the generator.
  const cold = [coldStart(n, random), coldStart(n, random)]
  const q = cold.map((v, c) => {
    const warm = options.start?.[c]
    return warm && warm.some((x) => x !== 0) ? Float64Array.from(warm) : v
  })
  const [first, second] = orthonormalise(q[0], q[1])
  if (!first || !second) {
    // A warm start with nothing left in one vector (or a second parallel to the first): cold for what is missing.
    if (!first) q[0].set(cold[0])
    q[1].set(cold[1])
    orthonormalise(q[0], q[1])
  }
  const z = [new Float64Array(n), new Float64Array(n)]
  const v = [new Float64Array(n), new Float64Array(n)]
  const previous = [new Float64Array(n), new Float64Array(n)]
  const previousChange = [Infinity, Infinity]
  let eigenvalues: [number, number] = [0, 0]
  let iterations = 0
  let converged = n === 0
  while (!converged && iterations < options.maxIterations) {
    iterations++
    gramTimesPair(m, q[0], q[1], z[0], z[1])
    // Rayleigh–Ritz: the 2 × 2 matrix H = QᵀCᵀCQ and its eigenvectors (a rotation by θ), the larger first.
    const a = dot(q[0], z[0])
    const b = dot(q[0], z[1])
    const d = dot(q[1], z[1])
    const theta = 0.5 * Math.atan2(2 * b, a - d)
    const [cos, sin] = [Math.cos(theta), Math.sin(theta)]
    eigenvalues = [a * cos * cos + 2 * b * sin * cos + d * sin * sin, a * sin * sin - 2 * b * sin * cos + d * cos * cos]
    if (!(eigenvalues[0] > 0)) {
      // No variance at all: both components are 0.
      v[0].fill(0)
      v[1].fill(0)
      eigenvalues = [0, 0]
      converged = true
      break
    }
    for (let i = 0; i < n; i++) {
      v[0][i] = cos * q[0][i] + sin * q[1][i]
      v[1][i] = cos * q[1][i] - sin * q[0][i]
      // The next pair: CᵀC applied to the Ritz vectors, z rotated the same way.
      q[0][i] = cos * z[0][i] + sin * z[1][i]
      q[1][i] = cos * z[1][i] - sin * z[0][i]
    }
    const flat = !(eigenvalues[1] > eigenvalues[0] * NEGLIGIBLE)
    const done = [0, 1].map((c) => {
      const change = changeOf(v[c], previous[c])
      const ok = settled(change, previousChange[c], options.tolerance)
      previousChange[c] = change
      previous[c].set(v[c])
      return ok
    })
    converged = done[0] && (done[1] || flat)
    orthonormalise(q[0], q[1])
  }
  if (!(eigenvalues[1] > eigenvalues[0] * NEGLIGIBLE)) {
    v[1].fill(0)
    eigenvalues[1] = 0
  }
  fixSign(v[0])
  fixSign(v[1])
  return { components: [v[0], v[1]], eigenvalues, iterations, converged }
}
