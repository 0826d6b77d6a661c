import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  designMean,
  kishSummary,
  largestShareMargin,
  postStratificationWeights,
  rakeWeights,
  ratingEstimates,
  trimWeights,
  unweightedRatingEstimates,
  Z95,
} from '../../src/engines/statistics/weighting.ts'

/** Close to the digits a reference prints: |actual − expected| ≤ half a unit of its last printed digit. */
function assertDigits(actual: number | null, expected: number, decimals: number, label: string): void {
  assert.ok(actual !== null, `${label}: expected ${expected}, got null`)
  assert.ok(Math.abs(actual - expected) <= 0.5 * 10 ** -decimals + 1e-12, `${label}: expected ${expected}, got ${actual}`)
}

// The worked example of the statistics research notes (A.6.4), verified there against R survey 4.1-1.
// Cells: 0 = 18-39 North, 1 = 18-39 South, 2 = 40+ North, 3 = 40+ South; age 0 young 1 old; area 0 North 1 South.
const CELLS = [
  { cell: 0, age: 0, area: 0, counts: [1, 0, 0, 2, 3], N: 30_000 },
  { cell: 1, age: 0, area: 1, counts: [1, 0, 0, 1, 2], N: 15_000 },
  { cell: 2, age: 1, area: 0, counts: [6, 3, 0, 2, 3], N: 30_000 },
  { cell: 3, age: 1, area: 1, counts: [2, 2, 0, 0, 2], N: 25_000 },
]
const ratings: number[] = []
const cells: number[] = []
const ages: number[] = []
const areas: number[] = []
for (const c of CELLS)
  c.counts.forEach((count, level) => {
    for (let k = 0; k < count; k++) {
      ratings.push(level + 1)
      cells.push(c.cell)
      ages.push(c.age)
      areas.push(c.area)
    }
  })
const population = new Map(CELLS.map((c) => [c.cell, c.N]))
const ageTargets = new Map([
  [0, 45_000],
  [1, 55_000],
])
const areaTargets = new Map([
  [0, 60_000],
  [1, 40_000],
])

test('A.6.4 post-stratified: weights N_h/n_h, estimates, Kish, standard errors with and without the post-stratification credit', () => {
  const weights = postStratificationWeights(cells, population)
  const byCell = new Map(cells.map((cell, i) => [cell, weights[i]]))
  assertDigits(byCell.get(0)!, 5000, 3, 'YN')
  assertDigits(byCell.get(1)!, 3750, 3, 'YS')
  assertDigits(byCell.get(2)!, 2142.857, 3, 'ON')
  assertDigits(byCell.get(3)!, 4166.667, 3, 'OS')
  const credited = ratingEstimates(ratings, weights, { type: 'post-stratified', cells })
  const fixed = ratingEstimates(ratings, weights)
  assertDigits(credited.weight_total, 100_000, 6, 'Σw')
  ;[0.299405, 0.147619, 0, 0.180357, 0.372619].forEach((p, k) =>
    assertDigits(credited.shares[String(k + 1) as '1'].estimate, p, 6, `p${k + 1}`),
  )
  assertDigits(credited.mean.estimate, 3.179167, 6, 'mean')
  const kish = kishSummary(weights)
  assertDigits(kish.effective_sample_size, 26.68785, 5, 'n_eff')
  assertDigits(kish.design_effect, 1.124107, 6, 'deff')
  assertDigits(fixed.mean.se, 0.33744, 5, 'fixed SE')
  assertDigits(credited.mean.se, 0.30922, 5, 'post-stratified SE')
  assertDigits(credited.mean.estimate! - Z95 * credited.mean.se!, 2.5731, 4, 'CI low')
  assertDigits(credited.mean.estimate! + Z95 * credited.mean.se!, 3.7852, 4, 'CI high')
  // P(agree) = share of 4 or 5: the mean of its indicator.
  const agree = ratings.map((r) => (r >= 4 ? 1 : 0))
  assertDigits(designMean(agree, weights).estimate, 0.552976, 6, 'P(agree)')
  assertDigits(designMean(agree, weights).se, 0.09689, 5, 'P(agree) fixed SE')
  assertDigits(designMean(agree, weights, { type: 'post-stratified', cells }).se, 0.084662, 6, 'P(agree) post-stratified SE')
})

test('A.6.4 raked on the age and area margins', () => {
  const raked = rakeWeights([ages, areas], [ageTargets, areaTargets], { epsilon: 1e-12 })
  assert.equal(raked.converged, true)
  const byCell = new Map(cells.map((cell, i) => [cell, raked.weights[i]]))
  assertDigits(byCell.get(0)!, 4062.675, 3, 'YN')
  assertDigits(byCell.get(1)!, 5155.988, 3, 'YS')
  assertDigits(byCell.get(2)!, 2544.568, 3, 'ON')
  assertDigits(byCell.get(3)!, 3229.341, 3, 'OS')
  const credited = ratingEstimates(ratings, raked.weights, { type: 'raked', margins: [ages, areas] })
  const fixed = ratingEstimates(ratings, raked.weights)
  // The notes print 3.155730; R (survey 4.5, rake to 1e-13) gives 3.155733531, so the notes hold 5 decimals here.
  assertDigits(credited.mean.estimate, 3.15573, 5, 'mean')
  assertDigits(credited.mean.estimate, 3.155733531171, 12, 'mean as R gives it')
  assertDigits(credited.mean.se, 0.307174156129, 9, 'raked SE as R gives it')
  const kish = kishSummary(raked.weights)
  assertDigits(kish.effective_sample_size, 27.88714, 5, 'n_eff')
  assertDigits(kish.design_effect, 1.075765, 6, 'deff')
  assertDigits(fixed.mean.se, 0.33262, 5, 'fixed SE')
  assertDigits(credited.mean.se, 0.3072, 4, 'raked SE')
  const agree = ratings.map((r) => (r >= 4 ? 1 : 0))
  assertDigits(designMean(agree, raked.weights).estimate, 0.54963, 5, 'P(agree)')
  assertDigits(designMean(agree, raked.weights).se, 0.09483, 5, 'P(agree) fixed SE')
})

test('A.6.4 unweighted: the simple random sampling formulas', () => {
  const plain = unweightedRatingEstimates(ratings)
  assertDigits(plain.mean.estimate, 3, 9, 'mean')
  assertDigits(plain.mean.se, 0.32163, 5, 'SE')
  const agree = ratings.map((r) => (r >= 4 ? 1 : 0))
  assertDigits(
    designMean(
      agree,
      agree.map(() => 1),
    ).se,
    0.09285,
    5,
    'P(agree) SE',
  )
  // p(1−p)/(n−1) for a share: 1/3 at level 1 of 30.
  assertDigits(plain.shares['1'].se, Math.sqrt(((1 / 3) * (2 / 3)) / 29), 12, 'share SE')
  assertDigits(largestShareMargin(plain), 100 * Z95 * Math.sqrt(((1 / 3) * (2 / 3)) / 29), 9, 'largest margin')
})

test('trimming caps at cap × mean weight, keeps the total and repeats until nothing exceeds it', () => {
  // mean 5, cap 2 → limit 10: 40 capped to 10, the other 10 scaled up to 10 in total... by hand:
  // weights [1,1,1,1,1,1,1,1,1,41] total 50, mean 5, limit 10. Pass 1: 41 → 10, others ×(40/9).
  // 40/9 ≈ 4.44 ≤ 10: done.
  const result = trimWeights([1, 1, 1, 1, 1, 1, 1, 1, 1, 41], 2)
  assert.equal(result.trimmed, true)
  assert.equal(result.limit, 10)
  assert.equal(result.weights[9], 10)
  for (let i = 0; i < 9; i++) assertDigits(result.weights[i], 40 / 9, 12, `w${i}`)
  assertDigits(
    result.weights.reduce((s, w) => s + w, 0),
    50,
    9,
    'total',
  )
  // Two passes: [1,1,10,10] total 22, mean 5.5, cap 1.5 → limit 8.25; 10s capped (16.5), 1s scaled to 2.75 each ≤ 8.25.
  const two = trimWeights([1, 1, 10, 10], 1.5)
  assert.deepEqual(
    two.weights.map((w) => Math.round(w * 1e9) / 1e9),
    [2.75, 2.75, 8.25, 8.25],
  )
  // Scaling lifts a weight over the limit: [1, 6, 13] total 20, cap 1.2 → limit 8. Pass 1: 13 → 8, others ×12/7:
  // 6 → 10.29 > 8, so pass 2: 6 → 8, 1 → 4.
  assert.deepEqual(
    trimWeights([1, 6, 13], 1.2).weights.map((w) => Math.round(w * 1e9) / 1e9),
    [4, 8, 8],
  )
  assert.equal(trimWeights([1, 2, 3], 5).trimmed, false)
})

test('empty, single and zero-weight cases never divide by zero', () => {
  const none = unweightedRatingEstimates([])
  assert.equal(none.mean.estimate, null)
  assert.equal(none.shares['3'].estimate, null)
  assert.equal(largestShareMargin(none), null)
  const one = unweightedRatingEstimates([4])
  assert.equal(one.mean.estimate, 4)
  assert.equal(one.mean.se, null)
  assert.equal(one.shares['4'].estimate, 1)
  assert.deepEqual(kishSummary([]), { sample_size: 0, weight_total: 0, effective_sample_size: 0, design_effect: null })
  assert.equal(designMean([1, 2], [0, 0]).estimate, null)
  assert.throws(() => ratingEstimates([6], [1]), RangeError)
  assert.throws(() => trimWeights([1, -1], 5), RangeError)
})
