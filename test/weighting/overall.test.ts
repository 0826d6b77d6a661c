import { test } from 'node:test'
import assert from 'node:assert/strict'
import { bandPopulations } from '../../src/modules/demographics/age-bands.ts'
import { bandPopulationsWithin, overallResult, type LoadedQuestion } from '../../src/modules/weighting/weighting.service.ts'
import { censusAges } from '../helpers/fixtures.ts'

/** weightedQuestionResult's arithmetic on answers given here (the HTTP tests cover loading them). */

const census = censusAges
const options = { weightCap: 5, minCellSize: 5 }

test('raking that cannot meet both margins falls back to post-stratifying the cells that have respondents', () => {
  // Region 1: only people aged 20 answered; region 2: only people aged 70. Both regions have both ages, so the
  // band margin (20: 100 + 300, 70: 200 + 400) and the region margin (1: 300, 2: 700) cannot both be met.
  const loaded: LoadedQuestion = {
    respondents: [
      { rating: 5, age: 20, region: 1 },
      { rating: 4, age: 20, region: 1 },
      { rating: 1, age: 70, region: 2 },
    ],
    census: new Map([
      [1, census({ 20: 100, 70: 200 })],
      [2, census({ 20: 300, 70: 400 })],
    ]),
  }
  const result = overallResult(loaded, options)
  assert.equal(result.method, 'post-stratified')
  assert.equal(result.partial, true)
  // Cells (15-25, region 1): 100 people for two respondents; (65-75, region 2): 400 for one.
  assert.ok(Math.abs(result.weighted_average_vote! - (50 * 5 + 50 * 4 + 400 * 1) / 500) < 1e-12)
  assert.equal(result.shares['1'].weighted_count, 400)
})

test('every cell full enough: post-stratified, not partial', () => {
  const respondents = [
    ...Array.from({ length: 5 }, () => ({ rating: 5, age: 20, region: 1 })),
    ...Array.from({ length: 5 }, () => ({ rating: 1, age: 20, region: 2 })),
  ]
  const result = overallResult(
    {
      respondents,
      census: new Map([
        [1, census({ 20: 100 })],
        [2, census({ 20: 300 })],
      ]),
    },
    options,
  )
  assert.equal(result.method, 'post-stratified')
  assert.equal(result.partial, false)
  assert.ok(Math.abs(result.weighted_average_vote! - (100 * 5 + 300 * 1) / 400) < 1e-12)
  // Every cell unanimous: no variation within cells, so no post-stratified variance.
  assert.equal(result.weighted_average_vote_margin, 0)
})

test('band populations clipped to an age range; the whole range is bandPopulations', () => {
  const ages = Array.from({ length: 91 }, (_, age) => age + 1)
  assert.deepEqual(bandPopulationsWithin(ages), bandPopulations(ages))
  assert.deepEqual(bandPopulationsWithin(ages, 0, Infinity), bandPopulations(ages))
  // 13 to 30: <15 holds ages 13, 14 (14 + 15 people), 15-25 all of it, 25-35 ages 25 to 30.
  const clipped = bandPopulationsWithin(ages, 13, 30)
  assert.equal(clipped[0], 14 + 15)
  assert.equal(clipped[1], bandPopulations(ages)[1])
  assert.equal(clipped[2], 26 + 27 + 28 + 29 + 30 + 31)
  assert.equal(clipped[3], 0)
  // From 88: 85+ holds 88, 89 and the "90 and over" count once.
  assert.equal(bandPopulationsWithin(ages, 88)[8], 89 + 90 + 91)
})
