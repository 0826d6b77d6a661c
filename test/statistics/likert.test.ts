import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  agreementLayers,
  foldedHeat,
  likertFigures,
  patternAgreement,
  patternTriples,
  proportions,
  tastleWiermanConsensus,
  vanDerEijkAgreement,
  vanDerEijkPolarisation,
  type LevelCounts,
  type LikertFigures,
} from '../../src/engines/statistics/likert.ts'

const TOLERANCE = 1e-6

function assertClose(actual: number, expected: number, label = ''): void {
  assert.ok(Math.abs(actual - expected) <= TOLERANCE, `${label} expected ${expected}, got ${actual} (tolerance ${TOLERANCE})`)
}

function assertFiguresClose(actual: LikertFigures, expected: Partial<LikertFigures>): void {
  for (const [field, value] of Object.entries(expected) as [keyof LikertFigures, number][]) {
    assertClose(actual[field], value, field)
  }
}

function assertFiguresInRange(figures: LikertFigures): void {
  for (const field of ['consensus', 'heat', 'polarisation'] as const) {
    assert.ok(figures[field] >= 0 && figures[field] <= 1, `${field} out of [0,1]: ${figures[field]}`)
  }
  assert.ok(figures.value >= 1 && figures.value <= 5, `value out of [1,5]: ${figures.value}`)
}

// Reference values from the worked examples (cross-checked against R agrmt).
const WORKED_EXAMPLES: { counts: LevelCounts; expected: Partial<LikertFigures> }[] = [
  {
    counts: [10, 5, 0, 5, 10],
    expected: { vote_count: 30, sum: 90, value: 3, consensus: 0.194988, polarisation: 0.712963, heat: 0.833333 },
  },
  {
    counts: [0, 0, 30, 0, 0],
    expected: { vote_count: 30, sum: 90, value: 3, consensus: 1, polarisation: 0, heat: 0 },
  },
  {
    counts: [6, 6, 6, 6, 6],
    expected: { vote_count: 30, sum: 90, value: 3, consensus: 0.433985, polarisation: 0.5, heat: 0.6 },
  },
  { counts: [15, 0, 0, 0, 15], expected: { value: 3, consensus: 0, polarisation: 1, heat: 1 } },
  { counts: [0, 15, 0, 15, 0], expected: { value: 3, consensus: 0.584963, polarisation: 0.416667, heat: 0.5 } },
  {
    counts: [0, 0, 0, 0, 30],
    expected: { vote_count: 30, sum: 150, value: 5, consensus: 1, polarisation: 0, heat: 1 },
  },
  {
    counts: [1, 2, 3, 10, 14],
    expected: { vote_count: 30, sum: 124, value: 4.133333, consensus: 0.624376, polarisation: 0.216667 },
  },
]

for (const { counts, expected } of WORKED_EXAMPLES) {
  test(`likertFigures([${counts.join(',')}]) matches the worked example`, () => {
    const figures = likertFigures(counts)
    assertFiguresClose(figures, expected)
    assertFiguresInRange(figures)
  })
}

test('van der Eijk agreement matches the worked examples', () => {
  assertClose(vanDerEijkAgreement([10, 5, 0, 5, 10]), -0.425926)
  assertClose(vanDerEijkAgreement([0, 0, 30, 0, 0]), 1)
  assertClose(vanDerEijkAgreement([6, 6, 6, 6, 6]), 0)
  assertClose(vanDerEijkAgreement([15, 0, 0, 0, 15]), -1)
  assertClose(vanDerEijkAgreement([0, 15, 0, 15, 0]), 0.166667)
  assertClose(vanDerEijkAgreement([1, 2, 3, 10, 14]), 0.566667)
})

test('layers of [10,5,0,5,10] follow the hand working', () => {
  const layers = agreementLayers([10, 5, 0, 5, 10])
  assert.deepEqual(
    layers.map((l) => l.pattern),
    [
      [true, true, false, true, true],
      [true, false, false, false, true],
    ],
  )
  assertClose(layers[0].weight, 2 / 3)
  assertClose(layers[1].weight, 1 / 3)
  assert.deepEqual(patternTriples(layers[0].pattern), { unimodal: 2, bimodal: 4 })
  assert.deepEqual(patternTriples(layers[1].pattern), { unimodal: 0, bimodal: 3 })
  assertClose(patternAgreement(layers[0].pattern), -0.138889)
  assertClose(patternAgreement(layers[1].pattern), -1)
})

test('layer weights sum to 1', () => {
  for (const counts of [
    [1, 2, 3, 10, 14],
    [0.1, 0.2, 0.3, 0, 0.7],
    [7, 0, 3, 3, 1],
  ] as LevelCounts[]) {
    const total = agreementLayers(counts).reduce((acc, l) => acc + l.weight, 0)
    assertClose(total, 1, `[${counts.join(',')}]`)
  }
})

test('pattern agreement special cases', () => {
  assert.equal(patternAgreement([false, false, true, false, false]), 1)
  assert.equal(patternAgreement([true, true, true, true, true]), 0)
  assertClose(patternAgreement([true, true, false, false, false]), 0.75)
  assertClose(patternAgreement([true, false, false, false, true]), -1)
})

test('no votes: every figure is exactly 0', () => {
  assert.deepEqual(likertFigures([0, 0, 0, 0, 0]), {
    vote_count: 0,
    sum: 0,
    value: 0,
    consensus: 0,
    heat: 0,
    polarisation: 0,
  })
})

test('a single vote is unanimous', () => {
  assert.deepEqual(likertFigures([0, 0, 0, 1, 0]), {
    vote_count: 1,
    sum: 4,
    value: 4,
    consensus: 1,
    heat: 0.5,
    polarisation: 0,
  })
  assert.deepEqual(likertFigures([1, 0, 0, 0, 0]), {
    vote_count: 1,
    sum: 1,
    value: 1,
    consensus: 1,
    heat: 1,
    polarisation: 0,
  })
})

test('unanimity gives exact 1 and 0 even for awkward fractional counts', () => {
  const figures = likertFigures([0, 0.1 + 0.2, 0, 0, 0])
  assert.equal(figures.consensus, 1)
  assert.equal(figures.polarisation, 0)
  assert.equal(figures.value, 2)
  assert.equal(figures.heat, 0.5)
})

test('weighted counts give the same figures as integer counts in the same ratio', () => {
  const pairs: [LevelCounts, LevelCounts][] = [
    [
      [0.5, 0.25, 0, 0.25, 0.5],
      [10, 5, 0, 5, 10],
    ],
    [
      [0.2, 0.2, 0.2, 0.2, 0.2],
      [6, 6, 6, 6, 6],
    ],
    [
      [0.1, 0.2, 0.3, 1.0, 1.4],
      [1, 2, 3, 10, 14],
    ],
    [
      [1 / 3, 0, 0, 0, 1 / 3],
      [15, 0, 0, 0, 15],
    ],
  ]
  for (const [weighted, integer] of pairs) {
    const a = likertFigures(weighted)
    const b = likertFigures(integer)
    for (const field of ['value', 'consensus', 'heat', 'polarisation'] as const) {
      assertClose(a[field], b[field], `${field} of [${weighted.join(',')}]`)
    }
  }
})

test('sum and vote_count stay in the units of the counts', () => {
  const figures = likertFigures([0.5, 0.25, 0, 0.25, 0.5])
  assertClose(figures.vote_count, 1.5)
  assertClose(figures.sum, 4.5)
})

test('figures stay in range next to an extreme with a vanishing minority', () => {
  const figures = likertFigures([1e-20, 0, 0, 0, 1])
  assertFiguresInRange(figures)
  assertClose(figures.consensus, 1)
  assertClose(figures.value, 5)
  assertClose(figures.heat, 1)
})

test('figures stay in range over many distributions', () => {
  // Deterministic sweep over small counts instead of random ones.
  for (let a = 0; a <= 3; a++)
    for (let b = 0; b <= 3; b++)
      for (let c = 0; c <= 3; c++)
        for (let d = 0; d <= 3; d++)
          for (let e = 0; e <= 3; e++) {
            const counts: LevelCounts = [a, b, c, d, e]
            const figures = likertFigures(counts)
            if (figures.vote_count === 0) continue
            assertFiguresInRange(figures)
            // Mirroring the scale keeps every figure except the mean.
            const mirrored = likertFigures([e, d, c, b, a])
            assertClose(mirrored.value, 6 - figures.value, 'mirrored value')
            for (const field of ['consensus', 'heat', 'polarisation'] as const) {
              assertClose(mirrored[field], figures[field], `mirrored ${field} of [${counts.join(',')}]`)
            }
          }
})

test('the helpers agree with likertFigures', () => {
  const counts: LevelCounts = [1, 2, 3, 10, 14]
  const p = proportions(counts)
  const figures = likertFigures(counts)
  assertClose(tastleWiermanConsensus(p), figures.consensus)
  assertClose(foldedHeat(p), figures.heat)
  assertClose(vanDerEijkPolarisation(counts), figures.polarisation)
})

test('invalid counts are refused', () => {
  assert.throws(() => likertFigures([-1, 0, 0, 0, 1]), RangeError)
  assert.throws(() => likertFigures([Number.NaN, 0, 0, 0, 1]), RangeError)
  assert.throws(() => likertFigures([Number.POSITIVE_INFINITY, 0, 0, 0, 1]), RangeError)
})
