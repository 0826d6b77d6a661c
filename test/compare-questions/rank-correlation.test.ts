import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cramersV, erfc, kendallTauB, twoSidedNormalP } from '../../src/engines/statistics/rank-correlation.ts'

/** The pure arithmetic on literal tables worked out by hand, and its edge cases. */

test('tau-b of a 2 x 2 table by hand', () => {
  // a = 3 (low, low), b = 1 (low, high), c = 1 (high, low), d = 2 (high, high); n = 7.
  // concordant a·d = 6, discordant b·c = 1; rows 4 and 3 tie 6 + 3 = 9 pairs, columns 4 and 3 tie 9 pairs of 21.
  // tau-b = 5 / √(12·12) = 5/12. Var(S) = (7·6·19 − (4·3·13 + 3·2·11)·2) / 18 + (18·18) / (2·7·6) + (30·30) / (9·7·6·5)
  //   = 59/3 + 27/7 + 10/21 = 24.
  const tau = kendallTauB([
    [3, 1],
    [1, 2],
  ])
  assert.equal(tau.n, 7)
  assert.equal(tau.concordant, 6)
  assert.equal(tau.discordant, 1)
  assert.ok(Math.abs(tau.estimate! - 5 / 12) < 1e-15)
  assert.ok(Math.abs(tau.z! - 5 / Math.sqrt(24)) < 1e-14)
  assert.ok(Math.abs(tau.pValue! - erfc(5 / Math.sqrt(24) / Math.SQRT2)) < 1e-15)
})

test('perfect agreement and perfect reversal', () => {
  const diagonal = [
    [2, 0, 0],
    [0, 3, 0],
    [0, 0, 1],
  ]
  assert.equal(kendallTauB(diagonal).estimate, 1)
  assert.equal(kendallTauB(diagonal.map((row) => [...row].reverse())).estimate, -1)
  // Cramér's V of a diagonal is 1.
  assert.ok(Math.abs(cramersV(diagonal).estimate! - 1) < 1e-15)
})

test('no people, one person, one level: no estimate, no division by zero', () => {
  for (const counts of [
    [],
    [[0, 0]],
    [
      [1, 0],
      [0, 0],
    ],
    [[2, 3, 1]],
    [[2], [5]],
  ]) {
    const tau = kendallTauB(counts)
    assert.equal(tau.estimate, null, JSON.stringify(counts))
    assert.equal(tau.z, null)
    assert.equal(tau.pValue, null)
    const v = cramersV(counts)
    assert.equal(v.estimate, null, JSON.stringify(counts))
    assert.equal(v.chiSquare, null)
  }
})

test('two people on different levels: tau-b ±1 and the variance of S is 1', () => {
  const tau = kendallTauB([
    [1, 0],
    [0, 1],
  ])
  assert.equal(tau.estimate, 1)
  assert.equal(tau.z, 1)
  assert.ok(Math.abs(tau.pValue! - 0.31731050786291409) < 1e-15) // R: 2 * pnorm(-1)
})

test('the normal tail, against R', () => {
  // R: 2 * pnorm(-z) for z = 0, 0.5, 1.959964, 3, 6, 10
  const expected: [number, number][] = [
    [0, 1],
    [0.5, 0.61707507745197387],
    [1.959964, 0.049999998192884809],
    [3, 0.0026997960632601892],
    [6, 1.9731752900753962e-9],
    [10, 1.5239706048321054e-23],
  ]
  for (const [z, p] of expected) {
    assert.ok(Math.abs(twoSidedNormalP(z) - p) <= 1e-14 * p, `${z}: ${twoSidedNormalP(z)} against ${p}`)
    assert.equal(twoSidedNormalP(-z), twoSidedNormalP(z))
  }
})
