import { test } from 'node:test'
import assert from 'node:assert/strict'
import type { Distances } from '../../src/modules/compare/compare.compute.ts'
import { rankPoliticians } from '../../src/modules/politicians/politicians.match.ts'

test('rankPoliticians: lowest percent first, nulls last, more common questions first, then the given order', () => {
  const histograms = new Map<number, Distances>([
    [10, [1, 1, 1, 1, 1]], // 5 questions, Σ i·d = 10: 100·10/20 = 50
    [11, [5, 0, 0, 0, 0]], // 0
    [12, [1, 0, 0, 0, 1]], // 2 questions: below the minimum
    [13, [3, 0, 0, 0, 0]], // 3 questions: below the minimum
    [14, [4, 0, 0, 0, 2]], // 6 questions, Σ = 8: 100·8/24 = 33.33…
    [15, [1, 1, 1, 1, 1]], // 50 again: after 10, which came first
  ])
  const candidates = [
    { id: 1, user_id: 10 },
    { id: 2, user_id: null },
    { id: 3, user_id: 12 },
    { id: 4, user_id: 11 },
    { id: 5, user_id: 13 },
    { id: 6, user_id: 14 },
    { id: 7, user_id: 99 },
    { id: 8, user_id: 15 },
  ]
  const ranked = rankPoliticians(candidates, histograms)
  assert.deepEqual(
    ranked.map((m) => [m.id, m.difference_percent, m.questions_counted]),
    [
      [4, 0, 5],
      [6, (100 * 8) / 24, 6],
      [1, 50, 5],
      [8, 50, 5],
      [5, null, 3],
      [3, null, 2],
      [2, null, 0],
      [7, null, 0],
    ],
  )
  assert.deepEqual(ranked.find((m) => m.id === 2)!.distances, [0, 0, 0, 0, 0])
  assert.deepEqual(rankPoliticians([], histograms), [])
})
