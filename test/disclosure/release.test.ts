import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  publishedCells,
  releaseGroup,
  releaseSiblings,
  releaseTree,
  releaseWhole,
  shownCount,
  type Headcount,
} from '../../src/disclosure/release.ts'

const K = 5
const count = (publicAnswers: number, privateAnswers: number): Headcount => ({ public: publicAnswers, private: privateAnswers })

test('a group shows its private answers only once it holds k of them, and is shown only with k respondents', () => {
  assert.deepEqual(releaseGroup(count(10, 0), K), { published: true, withPrivate: false })
  assert.deepEqual(releaseGroup(count(10, 1), K), { published: true, withPrivate: false })
  assert.deepEqual(releaseGroup(count(10, 4), K), { published: true, withPrivate: false })
  assert.deepEqual(releaseGroup(count(0, 5), K), { published: true, withPrivate: true })
  assert.deepEqual(releaseGroup(count(4, 0), K), { published: false, withPrivate: false })
  // One public answer and one private: neither five respondents shown nor five private answers.
  assert.deepEqual(releaseGroup(count(1, 1), K), { published: false, withPrivate: false })
  assert.deepEqual(releaseGroup(count(0, 0), K), { published: false, withPrivate: false })
})

test('a whole is always shown; its private answers count from the k-th', () => {
  assert.deepEqual(releaseWhole(count(1, 1), K), { published: true, withPrivate: false })
  assert.deepEqual(releaseWhole(count(0, 5), K), { published: true, withPrivate: true })
})

test('with k = 1 nothing is withheld', () => {
  const groups = [count(1, 0), count(0, 1), count(2, 3)]
  const releases = releaseSiblings(groups, 1, { count: count(3, 4), release: releaseWhole(count(3, 4), 1) })
  assert.ok(releases.every((release) => release.published))
  assert.deepEqual(
    groups.map((group, i) => shownCount(group, releases[i])),
    [1, 1, 5],
  )
})

test('the complement of the shown groups never holds one to k-1 private answers', () => {
  // Total 20 public + 6 private; group A holds 5 private, group B 1: B withholds its one, so the complement would be
  // exactly that one answer. A's five must be withheld too.
  const groups = [count(10, 5), count(10, 1)]
  const total = { count: count(20, 6), release: releaseWhole(count(20, 6), K) }
  const releases = releaseSiblings(groups, K, total)
  assert.deepEqual(releases, [
    { published: true, withPrivate: false },
    { published: true, withPrivate: false },
  ])
  const shownPrivate = releases.reduce((sum, release, i) => sum + (release.withPrivate ? groups[i].private : 0), 0)
  const complement = 6 - shownPrivate
  assert.ok(complement === 0 || complement >= K, `complement ${complement}`)
})

test('the complement of the shown groups never holds one to k-1 respondents (secondary suppression)', () => {
  // Cells 9, 7, 2 of a total 18: 2 is left out, and since 18 − 16 = 2 could be read back, the 7 goes too.
  assert.deepEqual(publishedCells([9, 7, 2], K, 18), [true, false, false])
  // Without a published total only the small cell goes.
  assert.deepEqual(publishedCells([9, 7, 2], K, null), [true, true, false])
  // Two small cells together make 5: nothing more to hide.
  assert.deepEqual(publishedCells([9, 3, 2], K, 14), [true, false, false])
  assert.deepEqual(publishedCells([9, 6, 5], K, 20), [true, true, true])
})

test('a group never shows private answers its total withholds', () => {
  const releases = releaseSiblings([count(3, 6)], K, { count: count(3, 6), release: { published: true, withPrivate: false } })
  assert.deepEqual(releases, [{ published: false, withPrivate: false }])
})

test('a tree releases level by level, each under its parent', () => {
  const tree = {
    key: 'question',
    count: count(30, 12),
    children: [
      {
        key: 'band 1',
        count: count(15, 6),
        children: [
          { key: 'band 1 men', count: count(8, 5) },
          { key: 'band 1 women', count: count(7, 1) },
        ],
      },
      { key: 'band 2', count: count(15, 6) },
    ],
  }
  const releases = releaseTree(tree, K, { wholeRoot: true })
  assert.deepEqual(releases.get('question'), { published: true, withPrivate: true })
  assert.deepEqual(releases.get('band 1'), { published: true, withPrivate: true })
  assert.deepEqual(releases.get('band 2'), { published: true, withPrivate: true })
  // Band 1 shows its 6 private answers; its men would show 5 of them, leaving the women's one as the complement.
  assert.deepEqual(releases.get('band 1 men'), { published: true, withPrivate: false })
  assert.deepEqual(releases.get('band 1 women'), { published: true, withPrivate: false })
  assert.equal(shownCount({ public: 8, private: 5 }, releases.get('band 1 men')!), 8)
})

test('the children of a withheld group are released as under a shown one (its parent minus its siblings tells it)', () => {
  // Band B is withheld beside A and C; its class of five private answers shown alone would leave, with the question
  // minus A minus C, the one private answer of B's other class.
  const tree = {
    key: 'question',
    count: count(95, 11),
    children: [
      { key: 'A', count: count(3, 0) },
      {
        key: 'B',
        count: count(1, 6),
        children: [
          { key: 'B1', count: count(0, 5) },
          { key: 'B2', count: count(1, 1) },
        ],
      },
      { key: 'C', count: count(91, 5) },
    ],
  }
  const releases = releaseTree(tree, K, { wholeRoot: true })
  assert.equal(releases.get('B1')!.published && releases.get('B1')!.withPrivate, false)
})

test('a negative complement (overlapping siblings) is checked by its size too', () => {
  // One person in both areas of 6: the total of 11 minus both areas is minus that person; one area goes.
  assert.deepEqual(publishedCells([6, 6], K, 11), [false, true])
})
