import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CollectedAnswers } from '../../src/modules/opinion-groups/collected-answers.ts'

/** Windows of answers as the repository's reads return them: numbers comma-separated, privacy as 0 or 1 each. */
function window(from: number, count: number) {
  const at = Array.from({ length: count }, (_, i) => from + i)
  return {
    count,
    accounts: at.map((i) => 100_000 + i).join(','),
    questions: at.map((i) => 7 + (i % 13)).join(','),
    vals: at.map((i) => 1 + (i % 5)).join(','),
    private: at.map((i) => (i % 3 === 0 ? '1' : '0')).join(''),
  }
}

test('answers collected over windows, past what was expected, read back whole; released, they are gone', () => {
  // Expected 10 (room for 1,024), given 3,000: the columns grow past their reservation and keep what they held.
  const collected = new CollectedAnswers(10)
  for (const [from, count] of [
    [0, 1000],
    [1000, 0],
    [1000, 1500],
    [2500, 500],
  ])
    collected.append(window(from, count))
  collected.append(undefined)
  const answers = collected.answers()
  assert.equal(answers.accountId.length, 3000)
  for (const i of [0, 999, 1000, 1023, 1024, 2999]) {
    assert.equal(answers.accountId[i], 100_000 + i)
    assert.equal(answers.questionId[i], 7 + (i % 13))
    assert.equal(answers.value[i], 1 + (i % 5))
    assert.equal(answers.private[i], i % 3 === 0 ? 1 : 0)
  }
  answers.release()
  assert.equal(answers.accountId.length, 0)
  assert.equal(answers.private.length, 0)
})

test('nothing read: empty columns', () => {
  const answers = new CollectedAnswers(0).answers()
  assert.deepEqual([answers.accountId.length, answers.questionId.length, answers.value.length, answers.private.length], [0, 0, 0, 0])
})
