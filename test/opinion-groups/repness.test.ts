/**
 * Representative columns, group-informed consensus and divisiveness against a reference written straight from
 * Pol.is's formulas (math/repness.clj, math/stats.clj, conversation.clj); the adjusted Rand index against a pair
 * count; the label matching and the k smoother.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { divisiveness, groupInformedConsensus } from '../../src/engines/opinion-groups/consensus.ts'
import { chooseGroupCount, type Grouping } from '../../src/engines/opinion-groups/groups.ts'
import { adjustedRandIndex } from '../../src/engines/opinion-groups/index.ts'
import { columnRepness, groupRepness, passesTests, selectRepresentative } from '../../src/engines/opinion-groups/repness.ts'
import { matchLabels } from '../../src/engines/opinion-groups/stability.ts'
import { seededRandom } from '../helpers/random.ts'

/** Pol.is's per-comment statistics, from the formulas (+1 / +2 pseudocounts). */
function reference(na: number, nd: number, ns: number, restA: number, restD: number, restS: number) {
  const propTest = (succ: number, n: number) => 2 * Math.sqrt(n + 1) * ((succ + 1) / (n + 1) - 0.5)
  const twoPropTest = (s1: number, s2: number, n1: number, n2: number) => {
    const p1 = (s1 + 1) / (n1 + 1)
    const p2 = (s2 + 1) / (n2 + 1)
    const pHat = (s1 + 1 + s2 + 1) / (n1 + 1 + n2 + 1)
    return pHat === 1 ? 0 : (p1 - p2) / Math.sqrt(pHat * (1 - pHat) * (1 / (n1 + 1) + 1 / (n2 + 1)))
  }
  const pa = (na + 1) / (ns + 2)
  const pd = (nd + 1) / (ns + 2)
  return {
    pa,
    pd,
    pat: propTest(na, ns),
    pdt: propTest(nd, ns),
    ra: pa / ((restA + 1) / (restS + 2)),
    rd: pd / ((restD + 1) / (restS + 2)),
    rat: twoPropTest(na, restA, ns, restS),
    rdt: twoPropTest(nd, restD, ns, restS),
  }
}

const close = (a: number, b: number, what: string) =>
  assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${what}: ${a} against ${b}`)

test('repness statistics equal the formulas', () => {
  const random = seededRandom(1)
  const cases = [
    [8, 1, 10, 2, 9, 12],
    [0, 0, 0, 0, 0, 0],
    [5, 5, 10, 5, 5, 10],
    [30, 0, 30, 30, 0, 30],
    ...Array.from({ length: 200 }, () => {
      const ns = Math.floor(random() * 60)
      const na = Math.floor(random() * (ns + 1))
      const nd = Math.floor(random() * (ns - na + 1))
      const rs = Math.floor(random() * 200)
      const ra = Math.floor(random() * (rs + 1))
      return [na, nd, ns, ra, Math.floor(random() * (rs - ra + 1)), rs]
    }),
  ]
  for (const [na, nd, ns, restA, restD, restS] of cases) {
    const ours = columnRepness({ agree: na, disagree: nd, seen: ns }, { agree: restA, disagree: restD, seen: restS })
    const expected = reference(na, nd, ns, restA, restD, restS)
    for (const [name, value] of Object.entries(expected))
      close(ours[name as keyof typeof ours], value, `${name} of ${[na, nd, ns, restA, restD, restS]}`)
    const z = 1.2816
    assert.equal(passesTests(ours), (expected.rat > z && expected.pat > z) || (expected.rdt > z && expected.pdt > z))
  }
  // The pooled rate of 1 (everyone agrees, in and out): the test is 0, not NaN.
  assert.equal(columnRepness({ agree: 30, disagree: 0, seen: 30 }, { agree: 30, disagree: 0, seen: 30 }).rat, 0)
})

test('the representative columns of each group', () => {
  // Two groups, five columns: [agree, disagree, seen] of group A, then of group B.
  const counts = [
    [40, 2, 45, 5, 30, 40], // A agrees, B disagrees
    [3, 38, 44, 30, 4, 38], // A disagrees, B agrees
    [20, 20, 44, 18, 19, 40], // both split: nobody stands out
    [42, 1, 44, 35, 2, 40], // both agree, A a little more: z = 1.31 passes for A
    [25, 10, 40, 10, 20, 38], // A leans agree; B's disagree rate 21/40 is too near ½ to pass
  ]
  const column = (g: number) => Int32Array.from(counts, (c) => c[3 * g])
  const agree = [column(0), column(1)]
  const disagree = [Int32Array.from(counts, (c) => c[1]), Int32Array.from(counts, (c) => c[4])]
  const seen = [Int32Array.from(counts, (c) => c[2]), Int32Array.from(counts, (c) => c[5])]
  const stats = groupRepness(agree, disagree, seen)
  counts.forEach(([a0, d0, s0, a1, d1, s1], j) => {
    const expected = reference(a0, d0, s0, a1, d1, s1)
    close(stats[0][j].rat, expected.rat, `column ${j} group A rat`)
    close(stats[1][j].rdt, reference(a1, d1, s1, a0, d0, s0).rdt, `column ${j} group B rdt`)
  })
  const [a, b] = stats.map((s) => selectRepresentative(s, 5))
  // Each shown column passed both tests or is the best agree; the metric is the product of its four figures.
  for (const shown of [...a, ...b]) {
    close(shown.metric, shown.repness * shown.repnessTest * shown.pSuccess * shown.pTest, 'metric')
    const s = (a.includes(shown) ? stats[0] : stats[1])[shown.column]
    assert.ok(passesTests(s) || shown.bestAgree)
  }
  assert.deepEqual(
    a.map((r) => [r.column, r.repfulFor]),
    [
      [0, 'agree'],
      [3, 'agree'],
      [4, 'agree'],
      [1, 'disagree'],
    ],
  )
  assert.equal(a[0].bestAgree, true)
  assert.deepEqual(
    b.map((r) => [r.column, r.repfulFor]),
    [
      [1, 'agree'],
      [0, 'disagree'],
    ],
  )
  // After the best agree, each part by falling metric: for A, column 3 (metric ≈ 8.2) before column 4 (≈ 7.5).
  assert.ok(a[1].metric > a[2].metric)
  assert.equal(b[0].bestAgree, true)
  // Nothing passes: the best agree stands alone; with no answers at all, the best by test.
  const flat = groupRepness([Int32Array.of(5, 5)], [Int32Array.of(5, 5)], [Int32Array.of(10, 10)])
  assert.equal(selectRepresentative(flat[0], 5).length, 1)
  assert.deepEqual(selectRepresentative([], 5), [])
})

test('group-informed consensus and divisiveness equal the formulas', () => {
  const agree = [Int32Array.of(9, 0, 5), Int32Array.of(18, 20, 5), Int32Array.of(1, 3, 0)]
  const seen = [Int32Array.of(10, 10, 10), Int32Array.of(20, 22, 10), Int32Array.of(2, 4, 0)]
  for (let j = 0; j < 3; j++) {
    const rates = agree.map((a, g) => (a[j] + 1) / (seen[g][j] + 2))
    close(
      groupInformedConsensus(agree, seen, j),
      rates.reduce((p, r) => p * r, 1),
      `consensus ${j}`,
    )
    close(divisiveness(agree, seen, j), Math.max(...rates) - Math.min(...rates), `divisiveness ${j}`)
  }
  close(groupInformedConsensus(agree, seen, 0), (10 / 12) * (19 / 22) * (2 / 4), 'by hand')
})

/** The adjusted Rand index from pair counts: pairs together in both, in the first only, in the second only. */
function pairCountAri(a: number[], b: number[]): number {
  let both = 0
  let first = 0
  let second = 0
  let pairs = 0
  for (let i = 0; i < a.length; i++)
    for (let j = i + 1; j < a.length; j++) {
      pairs++
      const sameA = a[i] === a[j]
      const sameB = b[i] === b[j]
      if (sameA && sameB) both++
      if (sameA) first++
      if (sameB) second++
    }
  const expected = (first * second) / pairs
  return (both - expected) / ((first + second) / 2 - expected)
}

test('the adjusted Rand index', () => {
  assert.equal(adjustedRandIndex([0, 0, 1, 1], [1, 1, 0, 0]), 1)
  close(adjustedRandIndex([0, 0, 1, 2], [0, 0, 1, 1]), 4 / 7, 'merged pair')
  close(adjustedRandIndex([0, 0, 1, 1], [0, 1, 0, 1]), -0.5, 'crossed')
  assert.equal(adjustedRandIndex([0, 0, 0], [5, 5, 5]), 1)
  const random = seededRandom(2)
  for (let c = 0; c < 30; c++) {
    const n = 5 + Math.floor(random() * 60)
    const a = Array.from({ length: n }, () => Math.floor(random() * 4))
    const b = a.map((x) => (random() < 0.3 ? Math.floor(random() * 5) : x + 10))
    close(adjustedRandIndex(a, b), pairCountAri(a, b), `case ${c}`)
  }
})

test('labels go to the previous group sharing the most members', () => {
  // New groups (rows) against previous labels 2, 5, 9 (columns).
  assert.deepEqual(
    matchLabels(
      [
        [1, 50, 4],
        [40, 45, 0],
        [0, 0, 30],
      ],
      [2, 5, 9],
    ),
    { labels: [5, 2, 9], kept: 3 },
  )
  // More new groups than old: the one left over takes the smallest free label.
  assert.deepEqual(
    matchLabels(
      [
        [10, 0],
        [0, 10],
        [3, 3],
      ],
      [1, 4],
    ),
    { labels: [1, 4, 0], kept: 2 },
  )
  // Fewer: a previous label goes unused.
  assert.deepEqual(matchLabels([[2, 9, 1]], [0, 1, 2]), { labels: [1], kept: 1 })
  assert.deepEqual(matchLabels([[0], [0]], [0]), { labels: [0, 1], kept: 0 })
})

test('k changes only after the same new best k wins four recomputes in a row', () => {
  const grouping = (k: number, silhouette: number, smallest = 50): Grouping => ({
    k,
    ofBase: new Int32Array(0),
    sizes: Float64Array.from({ length: k }, (_, g) => (g === 0 ? smallest : 100)),
    silhouette,
  })
  const groupings = [grouping(2, 0.5), grouping(3, 0.6), grouping(4, 0.55)]
  const first = chooseGroupCount(groupings, 10, 4, null)
  assert.deepEqual(first.smoothing, { bestK: 3, bestKRuns: 1, k: 3 })
  let state = { bestK: 2, bestKRuns: 9, k: 2 }
  const ks: number[] = []
  for (let run = 0; run < 5; run++) {
    const choice = chooseGroupCount(groupings, 10, 4, state)
    ks.push(choice.k)
    state = choice.smoothing
  }
  assert.deepEqual(ks, [2, 2, 2, 3, 3])
  // A k whose smallest group is under the minimum size is not eligible; the k in use is left when it is no longer.
  const small = chooseGroupCount([grouping(2, 0.5), grouping(3, 0.9, 4)], 10, 4, { bestK: 3, bestKRuns: 2, k: 3 })
  assert.equal(small.best, 2)
  assert.equal(small.k, 2)
  assert.equal(small.candidates[1].eligible, false)
  assert.deepEqual(chooseGroupCount([grouping(2, 0.5, 3)], 10, 4, null), {
    k: 1,
    best: null,
    candidates: [{ k: 2, silhouette: 0.5, smallestGroup: 3, eligible: false }],
    smoothing: { bestK: 1, bestKRuns: 1, k: 1 },
  })
})
