import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import {
  isWebLink,
  orderedTags,
  parseDateTime,
  planChoices,
  requestedSubtype,
  windowErrors,
} from '../../src/modules/questions/question-rules.ts'
import { nextFreeSlug, slugify } from '../../src/modules/questions/slug.ts'

describe('slugs', () => {
  test('from titles', () => {
    assert.equal(slugify('Should the NHS be funded by taxes?'), 'should-the-nhs-be-funded-by-taxes')
    assert.equal(slugify('  Crème brûlée — über alles!  '), 'creme-brulee-uber-alles')
    assert.equal(slugify('Голосование'), 'question')
    assert.equal(slugify('!!!'), 'question')
    const long = slugify('word '.repeat(40))
    assert.ok(long.length <= 60 && !long.endsWith('-'), long)
    assert.equal(slugify('x'.repeat(100)).length, 60)
  })

  test('the next free one', () => {
    assert.equal(nextFreeSlug('tax', []), 'tax')
    assert.equal(nextFreeSlug('tax', ['tax']), 'tax-2')
    assert.equal(nextFreeSlug('tax', ['tax', 'tax-2', 'tax-7']), 'tax-8')
    assert.equal(nextFreeSlug('tax', ['tax-2']), 'tax', 'a free base is used first')
    assert.equal(nextFreeSlug('tax', ['tax', 'tax-rises']), 'tax-2', 'other slugs with the prefix do not count')
  })
})

describe('dates, links and windows', () => {
  test('DRF date-time input', () => {
    assert.equal(parseDateTime('2030-01-02T03:04:05Z')?.toISOString(), '2030-01-02T03:04:05.000Z')
    assert.equal(parseDateTime('2030-01-02T03:04:05.123456+02:00')?.toISOString(), '2030-01-02T01:04:05.123Z')
    assert.equal(parseDateTime('2030-01-02 03:04')?.toISOString(), '2030-01-02T03:04:00.000Z', 'no offset is UTC')
    assert.equal(parseDateTime('2030-01-02')?.toISOString(), '2030-01-02T00:00:00.000Z')
    for (const bad of ['tomorrow', '2030-02-30', '2030-02-30T10:00+02:00', '2030-13-01', '2030-01-02T25:00', ''])
      assert.equal(parseDateTime(bad), null, bad)
  })

  test('links', () => {
    assert.ok(isWebLink('https://example.org/a?b=c'))
    for (const bad of ['javascript:alert(1)', '/relative', 'ftp://x.org', 'http://', 'example.org']) assert.ok(!isWebLink(bad), bad)
  })

  test('the window', () => {
    const at = (day: number) => new Date(Date.UTC(2030, 0, day))
    assert.deepEqual(windowErrors(at(1), at(2)), {})
    assert.deepEqual(windowErrors(null, at(2)), {})
    assert.deepEqual(Object.keys(windowErrors(at(2), at(2))), ['end_at'])
  })
})

describe('tags and subtypes', () => {
  test('the topic first, each tag once', () => {
    assert.deepEqual(orderedTags([3, 4, 3], undefined), [3, 4])
    assert.deepEqual(orderedTags([3, 4], 4), [4, 3])
    assert.deepEqual(orderedTags([3], 9), [9, 3])
    assert.deepEqual(orderedTags([], null), [])
  })

  test('the subtype a body asks for', () => {
    assert.equal(requestedSubtype(undefined, undefined, 'mcq'), 'mcq')
    assert.equal(requestedSubtype(undefined, [], 'mcq'), 'likert')
    assert.equal(requestedSubtype(undefined, [{}], 'likert'), 'mcq')
    assert.equal(requestedSubtype('likert', [{}], 'mcq'), 'likert')
  })
})

describe('choice plans', () => {
  const stored = [
    { id: 1, text: 'Yes', answered: true },
    { id: 2, text: 'No', answered: false },
    { id: 3, text: 'Maybe', answered: false },
  ]

  test('keep, reword, reorder, add, remove', () => {
    const { plan, errors } = planChoices(stored, [{ id: 3, text: 'Perhaps' }, { id: 1, text: 'Yes' }, { text: 'Never' }])
    assert.deepEqual(errors, {})
    assert.deepEqual(plan, {
      remove: [2],
      list: [
        { id: 3, text: 'Perhaps' },
        { id: 1, text: 'Yes' },
        { id: null, text: 'Never' },
      ],
    })
  })

  test('answered choices neither change nor go; foreign or repeated ids are unknown', () => {
    assert.deepEqual(planChoices(stored, [{ id: 2, text: 'No' }]).errors, {
      choices: ['The choice "Yes" has answers; it cannot be removed.'],
    })
    assert.deepEqual(
      planChoices(stored, [
        { id: 1, text: 'Yes!' },
        { id: 2, text: 'No' },
        { id: 3, text: 'Maybe' },
      ]).errors,
      { choices: ['The choice "Yes" has answers; its text cannot change.'] },
    )
    assert.deepEqual(
      planChoices(stored, [
        { id: 1, text: 'Yes' },
        { id: 1, text: 'Yes' },
        { id: 9, text: 'x' },
      ]).errors.choices.slice(0, 2),
      ['Invalid pk "1" - object does not exist.', 'Invalid pk "9" - object does not exist.'],
    )
  })
})
