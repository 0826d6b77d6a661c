import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { censusAges, insertGroup, insertQuestion, insertUser } from '../helpers/fixtures.ts'

/**
 * The breakdowns by age, gender and area, and the census-weighted results, attacked as an observer would: anonymous
 * requests, knowing every public attribute (ages, genders, regions, group memberships, public answers). V answers
 * privately; each test asserts V's answer cannot be read, at the default MIN_CELL_SIZE (5).
 */
const K = 5
const ANSWERED_AT = new Date('2026-03-01T12:00:00Z')
let t: TestApp
const db = () => t.database.db
let author: number
let north: number
let south: number
let country: number

interface Who {
  dob?: string | null
  gender?: number
  region?: number | null
  groups?: number[]
}

async function person(who: Who = {}) {
  const user = await insertUser(db(), {
    dob: who.dob === undefined ? '1996-01-01' : who.dob,
    gender: who.gender ?? 2,
    country_id: country,
    region_id: who.region === undefined ? north : who.region,
  })
  for (const group of who.groups ?? []) await db().insertInto('group_memberships').values({ user_id: user.id, group_id: group }).execute()
  return user.id
}

async function answer(user: number, question: number, value: number | null, isPrivate = false) {
  await db()
    .insertInto('question_votes')
    .values({ user_id: user, question_id: question, value, skipped: value === null, private: isPrivate, created_at: ANSWERED_AT })
    .execute()
}

/** `n` people alike, answering `value`. */
async function crowd(question: number, n: number, value: number, who: Who = {}, isPrivate = false) {
  for (let i = 0; i < n; i++) await answer(await person(who), question, value, isPrivate)
}

const newQuestion = async () => (await insertQuestion(db(), author, { subtype: 'likert' })).id

function csvRows(text: string): string[][] {
  return text
    .trim()
    .split('\r\n')
    .slice(1)
    .map((line) => line.split(','))
}

before(async () => {
  t = await createTestApp('empty')
  const area = async (code: string, m_type: string, parent: number | null) =>
    (
      await db()
        .insertInto('areas')
        .values({ code, name: `Area ${code}`, m_type, parent_id: parent })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id
  country = await area('ATK-C', 'country', null)
  north = await area('ATK-N', 'region', country)
  south = await area('ATK-S', 'region', country)
  for (const region of [north, south]) {
    const ages = censusAges(Object.fromEntries(Array.from({ length: 91 }, (_, age) => [age, 100])))
    await db()
      .insertInto('census_data')
      .values({ area_id: region, code: `C${region}`, name: 'census', date: '2021-03-21', ages, all_ages: 9100 })
      .execute()
  }
  author = await insertUser(db()).then((user) => user.id)
})
after(() => t.close())

test('small cell: a private answer alone in its (age band, gender) is in no cell, no row and no total', async () => {
  const question = await newQuestion()
  await crowd(question, 6, 4) // public: 30-year-old women, rating 4
  const v = await person({ dob: '1980-01-01', gender: 1 }) // 46, a man
  await answer(v, question, 2, true)
  const body = await t.json(`/api/question_demographics/?question=${question}`)
  assert.deepEqual(body.ageggendervalues, [{ id__count: 6, age_range: '25-35', user__gender: 2, value: 4, object__text: null }])
  // One private answer is under k: the question's own figures leave it out too.
  assert.equal(body.total_votes, 6)
  const csv = await t.get(`/api/question_demographics/?question=${question}&format=csv`)
  assert.deepEqual(csvRows(csv.body), [['25-35', '2', '', '', '4', 'false', '6', 'false']])
  assert.ok(!csv.body.includes('45-55'), 'no row, blank or not, names the cell')
  // People: no (age group, gender) cell of fewer than k people.
  for (const cell of await t.json('/api/users/demographics/')) assert.ok(cell.id__count >= K, JSON.stringify(cell))
})

test('narrow filter: a group in which only V answered gives nothing away (JSON and CSV)', async () => {
  const question = await newQuestion()
  const group = (await insertGroup(db())).id
  await crowd(question, 6, 4)
  const v = await person({ groups: [group] })
  await answer(v, question, 1, true)
  await person({ groups: [group] }) // a member who did not answer
  const url = `/api/question_demographics/?question=${question}&user__group_memberships__group=${group}`
  assert.deepEqual(await t.json(url), { total_votes: 0, ageggendervalues: [] })
  const csv = await t.get(`${url}&format=csv`)
  assert.deepEqual(csvRows(csv.body), [])
})

test('complement: the total and the question’s figures minus the published cells hold no private answer or at least k', async () => {
  const question = await newQuestion()
  await crowd(question, 10, 4) // public, 25-35 women of the north
  await crowd(question, 5, 4, {}, true) // five private answers in the same cell
  const v = await person({ dob: '1980-01-01', gender: 1, region: south })
  await answer(v, question, 2, true)
  const body = await t.json(`/api/question_demographics/?question=${question}`)
  const cells = body.ageggendervalues.reduce((sum: number, cell: { id__count: number }) => sum + cell.id__count, 0)
  for (const cell of body.ageggendervalues) assert.ok(cell.id__count >= K)
  // Every public answer is in a published cell, so what the total leaves is private: V's and the five others', or none.
  const left = body.total_votes - cells
  assert.ok(left === 0 || left >= K, `left: ${left}`)
  assert.ok(!body.ageggendervalues.some((cell: { user__gender: number }) => cell.user__gender === 1))
  // The weighted results: no band row or region row stands for V, and the rows' private answers are not V's alone.
  const age = await t.json(`/api/question_weighted_demographics/${question}/age/`)
  for (const row of age.data) assert.ok(row.sample_size >= K && row.age_range !== '45-55', JSON.stringify(row))
  const rated = age.data.reduce((sum: number, row: { sample_size: number }) => sum + row.sample_size, 0)
  const ratedLeft = age.overall.sample_size - rated
  assert.ok(ratedLeft === 0 || ratedLeft >= K, `ratings left: ${ratedLeft}`)
  const area = await t.json(`/api/question_weighted_demographics/${question}/area/`)
  assert.ok(!area.data.some((row: { region_id: number }) => row.region_id === south))
  // The weighted cells: V's private answer waits for its batch (the five before it were released together), so it
  // is counted nowhere yet, and the five released ones count in their weighting cell, which holds five.
  assert.equal(age.overall.weighted_sample_size, 15)
  assert.equal(body.total_votes, 15)
})

test('two overlapping filters whose difference is one person answer the same', async () => {
  const question = await newQuestion()
  const everyone = (await insertGroup(db())).id
  const allButV = (await insertGroup(db())).id
  for (let i = 0; i < 7; i++) await answer(await person({ groups: [everyone, allButV] }), question, 3)
  await crowd(question, 5, 5, { groups: [everyone, allButV] }, true)
  const v = await person({ groups: [everyone] })
  await answer(v, question, 1, true)
  for (const format of ['', '&format=csv']) {
    const one = await t.get(`/api/question_demographics/?question=${question}&user__group_memberships__group=${everyone}${format}`)
    const two = await t.get(`/api/question_demographics/?question=${question}&user__group_memberships__group=${allButV}${format}`)
    assert.equal(one.body, two.body, format)
  }
  // Public answers are still readable through a filter.
  const body = await t.json(`/api/question_demographics/?question=${question}&user__group_memberships__group=${allButV}`)
  assert.deepEqual(body, {
    total_votes: 7,
    ageggendervalues: [{ id__count: 7, age_range: '25-35', user__gender: 2, value: 3, object__text: null }],
  })
})

test('single year of age: V, whose age (46) is public, is not a point of the weighted results by age', async () => {
  const question = await newQuestion()
  await crowd(question, 8, 4)
  const v = await person({ dob: '1980-01-01' }) // 46 on the day of the answer
  await answer(v, question, 2, true)
  for (const url of [`/api/question_weighted_demographics/${question}/age/`, `/api/question_weighted_demographics/?question=${question}`]) {
    const body = await t.json(url)
    assert.deepEqual(
      body.data.map((row: { age: number; age_range: string; sample_size: number; average_vote: number }) => [
        row.age,
        row.age_range,
        row.sample_size,
        row.average_vote,
      ]),
      [[25, '25-35', 8, 4]],
      url,
    )
    assert.ok(!body.data.some((row: { age: number }) => row.age === 46))
    // The overall figures count V's answer only once k private answers are together: here they are the public ones.
    assert.equal(body.overall.sample_size, 8)
    assert.equal(body.overall.average_vote, 4)
  }
})

test('region with count 1: V alone in a region is on no map, in no format, nor a weighted region', async () => {
  const question = await newQuestion()
  await crowd(question, 6, 4)
  const v = await person({ region: south })
  await answer(v, question, 2, true)
  const body = await t.json(`/api/question_geographics/?question=${question}`)
  const ids = body.results.map((row: { area: { id: number } }) => row.area.id)
  assert.ok(!ids.includes(south))
  assert.deepEqual(ids, [country, north])
  // The country holds V too, but shows its public answers only: nothing of the south can be subtracted out of it.
  const whole = body.results.find((row: { area: { id: number } }) => row.area.id === country)
  assert.deepEqual([whole.count, whole.direct_low, whole.direct_high], [6, 0, 6])
  const geojson = (await t.get(`/api/question_geographics/?question=${question}&format=geojson`)).json()
  assert.ok(!geojson.features.some((feature: { id: number }) => feature.id === south))
  const csv = await t.get(`/api/question_geographics/?question=${question}&format=csv`)
  assert.ok(!csvRows(csv.body).some((row) => row[0] === String(south)))
  assert.ok(!csvRows(csv.body).some((row) => row[7] === '2'), 'no row carries V’s rating')
  const area = await t.json(`/api/question_weighted_demographics/${question}/area/`)
  assert.deepEqual(
    area.data.map((row: { region_id: number; sample_size: number }) => [row.region_id, row.sample_size]),
    [[north, 6]],
  )
  // A public answer alone in a region is not shown either (a published row describes k respondents).
  const other = await newQuestion()
  await crowd(other, 6, 4)
  await answer(await person({ region: south }), other, 1)
  const map = await t.json(`/api/question_geographics/?question=${other}`)
  assert.ok(!map.results.some((row: { area: { id: number } }) => row.area.id === south))
})

test('a date of birth after the answer is an unknown age, not the <15 band, in breakdowns and weighting', async () => {
  const question = await newQuestion()
  await crowd(question, 6, 4)
  // Born half a year after answering: six of them, so a "<15" cell would be large enough to publish.
  await crowd(question, 6, 1, { dob: '2026-09-01' })
  const body = await t.json(`/api/question_demographics/?question=${question}`)
  assert.equal(body.total_votes, 12)
  assert.ok(!body.ageggendervalues.some((cell: { age_range: string }) => cell.age_range === '<15'))
  const csv = await t.get(`/api/question_demographics/?question=${question}&format=csv`)
  assert.ok(!csv.body.includes('<15'))
  const age = await t.json(`/api/question_weighted_demographics/${question}/age/`)
  assert.ok(!age.data.some((row: { age: number }) => row.age === 0))
  // Unknown ages cannot be weighted: they count in the plain figures and in `excluded`.
  assert.equal(age.overall.sample_size, 12)
  assert.equal(age.overall.excluded, 6)
})
