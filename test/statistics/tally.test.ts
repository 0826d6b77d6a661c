import { test } from 'node:test'
import assert from 'node:assert/strict'
import { likertFigures } from '../../src/engines/statistics/likert.ts'
import { directAfter, emptyFamily, familyColumns, withMoves, type FamilyTally } from '../../src/engines/statistics/tally.ts'

const family = (counts: FamilyTally['counts'], skipped = 0): FamilyTally => ({ counts, skipped })

test('a changed rating moves the direct family exactly as a recomputation from its counts', () => {
  const after = directAfter(family([1, 0, 2, 0, 3]), { value: 3 }, { value: 5 })
  assert.deepEqual(after, family([1, 0, 1, 0, 4]))
  const columns = familyColumns('direct', after)
  const figures = likertFigures([1, 0, 1, 0, 4])
  assert.deepEqual([columns.direct_medium, columns.direct_maximum, columns.direct_vote_count, columns.direct_skipped], [1, 4, 6, 0])
  assert.equal(columns.direct_consensus, figures.consensus)
  assert.equal(columns.direct_heat, figures.heat)
  assert.equal(columns.direct_value, figures.value)
})

test('a skip counts apart from the levels, and withdrawing the last answer empties the family', () => {
  assert.deepEqual(directAfter(family([0, 1, 0, 0, 0]), { value: 2 }, { value: null }), family([0, 0, 0, 0, 0], 1))
  assert.deepEqual(directAfter(family([0, 0, 0, 0, 0], 1), { value: null }, null), emptyFamily())
  assert.equal(familyColumns('direct', emptyFamily()).direct_vote_count, 0)
})

test('weight moves apply additions first, so moving weight within one row never goes negative', () => {
  // 3 units leave level 2 and arrive at level 2 again with 4 more: removing first would pass through −2.
  const moved = withMoves(family([0, 1, 0, 0, 0]), [
    { value: 2, amount: -3 },
    { value: 2, amount: 7 },
  ])
  assert.deepEqual(moved, family([0, 5, 0, 0, 0]))
})

test('removing an answer the counts do not hold is refused, not stored', () => {
  assert.throws(() => directAfter(family([0, 0, 0, 0, 0]), { value: 4 }, null), RangeError)
  assert.throws(() => withMoves(emptyFamily(), [{ value: null, amount: -1 }]), RangeError)
})
