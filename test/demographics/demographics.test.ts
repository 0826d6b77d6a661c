import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { parseCsv } from '../helpers/csv.ts'
import { insertGroup, insertQuestion, insertUser } from '../helpers/fixtures.ts'

/**
 * question_demographics, users/demographics and question_geographics against people and answers made here; every
 * expected figure is computed in this file from the rows it inserted, with its own age arithmetic.
 */
let t: TestApp
const db = () => t.database.db

// ---- independent arithmetic -------------------------------------------------------------------------------

/** Whole years from a YYYY-MM-DD birth date to a UTC moment, counted the way a birthday is. */
function yearsBetween(dob: string, at: Date): number {
  const [y, m, d] = dob.split('-').map(Number)
  let age = at.getUTCFullYear() - y
  if (at.getUTCMonth() + 1 < m || (at.getUTCMonth() + 1 === m && at.getUTCDate() < d)) age--
  return age
}
/** The web app's bands: the first age of each, from the labels. */
const BANDS: [string, number][] = [
  ['<15', 0],
  ['15-25', 15],
  ['25-35', 25],
  ['35-45', 35],
  ['45-55', 45],
  ['55-65', 55],
  ['65-75', 65],
  ['75-85', 75],
  ['85+', 85],
]
function band(dob: string | null, at: Date): string | null {
  if (dob === null) return null
  const age = yearsBetween(dob, at)
  if (age < 0) return null
  let label = BANDS[0][0]
  for (const [name, from] of BANDS) if (age >= from) label = name
  return label
}
/** The chart's groups: 0-10 → 10, 11-20 → 9, ..., 91-100 → 1, past 100 → 0. */
function ageGroup(dob: string | null, today: Date): number | null {
  if (dob === null) return null
  const age = yearsBetween(dob, today)
  if (age < 0) return null
  const groups: [number, number, number][] = []
  groups.push([0, 10, 10])
  for (let g = 9; g >= 1; g--) groups.push([(10 - g) * 10 + 1, (11 - g) * 10, g])
  return groups.find(([from, to]) => age >= from && age <= to)?.[2] ?? 0
}

/** A CSV answer under test as one object a row, by header: CRLF line ends, every row as wide as the header. */
function csvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text, { crlf: true })
  for (const row of rows) assert.equal(row.length, header.length)
  return rows.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])))
}

const sortBy = <T>(items: T[]) => [...items].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))

/** Counts of equal keys. */
function tally<K>(items: K[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(JSON.stringify(item), (counts.get(JSON.stringify(item)) ?? 0) + 1)
  return counts
}

// ---- the data -----------------------------------------------------------------------------------------------

interface Person {
  id: number
  dob: string | null
  gender: number
  country: number | null
  region: number | null
  district: number | null
  geos: number[]
  groups: number[]
}
const ANSWERED_AT = new Date('2026-06-15T12:00:00Z')
const people: Person[] = []
const areas: Record<
  string,
  { id: number; longitude: number; latitude: number; code: string; name: string; m_type: string; parent: number | null }
> = {}
let group: number
let otherGroup: number
let author: number
let authorToken: string
let likert: number
let mcq: number
let draft: number
const choices: { id: number; text: string }[] = []
const likertAnswers: { person: Person; value: number | null; private: boolean }[] = []
const choiceAnswers: { person: Person; choice: number; value: number | null }[] = []

async function insertArea(key: string, m_type: string, parent: string | null, longitude: number, latitude: number) {
  const row = await db()
    .insertInto('areas')
    .values({ code: `${key}-code`, name: `Area ${key}`, m_type, parent_id: parent ? areas[parent].id : null, longitude, latitude })
    .returning('id')
    .executeTakeFirstOrThrow()
  areas[key] = {
    id: row.id,
    longitude,
    latitude,
    code: `${key}-code`,
    name: `Area ${key}`,
    m_type,
    parent: parent ? areas[parent].id : null,
  }
}

async function person(values: Omit<Person, 'id'>): Promise<Person> {
  const user = await insertUser(db(), {
    dob: values.dob,
    gender: values.gender,
    country_id: values.country,
    region_id: values.region,
    district_id: values.district,
  })
  for (const area of values.geos) await db().insertInto('user_geos').values({ user_id: user.id, area_id: area }).execute()
  for (const g of values.groups) await db().insertInto('group_memberships').values({ user_id: user.id, group_id: g }).execute()
  const made = { id: user.id, ...values }
  people.push(made)
  return made
}

async function answerLikert(who: Person, question: number, value: number | null, isPrivate = false) {
  await db()
    .insertInto('question_votes')
    .values({ user_id: who.id, question_id: question, value, skipped: value === null, private: isPrivate, created_at: ANSWERED_AT })
    .execute()
  if (question === likert) likertAnswers.push({ person: who, value, private: isPrivate })
}

async function answerChoice(who: Person, choice: number, value: number | null) {
  await db()
    .insertInto('question_choice_votes')
    .values({ user_id: who.id, question_id: mcq, choice_id: choice, value, skipped: value === null, created_at: ANSWERED_AT })
    .execute()
  choiceAnswers.push({ person: who, choice, value })
}

before(async () => {
  // The arithmetic of every cell: nothing withheld (test/disclosure/demographics-attacks.test.ts runs the rules at 5).
  t = await createTestApp('empty', { MIN_CELL_SIZE: '1' })
  await insertArea('country', 'country', null, -1.5, 52.5)
  await insertArea('north', 'region', 'country', -2.25, 54.75)
  await insertArea('south', 'region', 'country', -0.5, 51.25)
  await insertArea('town', 'district', 'north', -2.5, 54.5)
  await insertArea('unused', 'region', 'country', 1, 1)
  group = (await insertGroup(db())).id
  otherGroup = (await insertGroup(db())).id
  const authorRow = await insertUser(db())
  author = authorRow.id
  authorToken = await t.tokenFor(author)
  likert = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  mcq = (await insertQuestion(db(), author, { subtype: 'mcq' })).id
  draft = (await insertQuestion(db(), author, { publish: false })).id
  for (const [i, text] of ['Rail, "fast"', 'Buses', 'Bicycles'].entries()) {
    const row = await db()
      .insertInto('question_choices')
      .values({ question_id: mcq, text, store_number: i })
      .returning(['id', 'text'])
      .executeTakeFirstOrThrow()
    choices.push(row)
  }
  const { country, north, south, town } = areas

  // Six people of the same cell (25-35, female, rating 4), so one cell reaches MIN_CELL_SIZE (5) in the exports.
  for (let i = 0; i < 6; i++) {
    const p = await person({
      dob: `199${i + 2}-03-0${i + 1}`,
      gender: 2,
      country: country.id,
      region: north.id,
      district: null,
      geos: [country.id, north.id],
      groups: i < 3 ? [group] : [],
    })
    await answerLikert(p, likert, 4, i % 2 === 0)
    await answerChoice(p, choices[0].id, 5)
  }
  // Birthdays around the answer (2026-06-15): one turns 25 that day, one the day after.
  const turning = await person({
    dob: '2001-06-15',
    gender: 1,
    country: country.id,
    region: south.id,
    district: null,
    geos: [south.id],
    groups: [group],
  })
  await answerLikert(turning, likert, 2)
  const almost = await person({ dob: '2001-06-16', gender: 1, country: country.id, region: south.id, district: null, geos: [], groups: [] })
  await answerLikert(almost, likert, 2)
  // No date of birth, a skip; an elderly person of a district; a child; a "not said" gender.
  const unknown = await person({ dob: null, gender: 3, country: null, region: null, district: null, geos: [], groups: [group] })
  await answerLikert(unknown, likert, null)
  await answerChoice(unknown, choices[1].id, null)
  const elder = await person({
    dob: '1930-01-01',
    gender: 0,
    country: country.id,
    region: north.id,
    district: town.id,
    geos: [town.id],
    groups: [otherGroup],
  })
  await answerLikert(elder, likert, 5, true)
  await answerChoice(elder, choices[2].id, 3)
  const child = await person({ dob: '2014-12-31', gender: 2, country: country.id, region: north.id, district: null, geos: [], groups: [] })
  await answerLikert(child, likert, 1)
  await answerChoice(child, choices[0].id, 1)
  // People who do not answer, some inactive or deleted (users/demographics counts only the active ones).
  await person({ dob: '1980-05-05', gender: 1, country: country.id, region: south.id, district: null, geos: [south.id], groups: [] })
  const inactive = await insertUser(db(), { dob: '1980-05-05', gender: 1, is_active: false })
  const deleted = await insertUser(db(), { dob: '1980-05-05', gender: 1, is_deleted: true })
  await db().insertInto('user_geos').values({ user_id: inactive.id, area_id: south.id }).execute()
  await db().insertInto('user_geos').values({ user_id: deleted.id, area_id: south.id }).execute()
  // The draft's one answer.
  await answerLikert(people[0], draft, 3)
})
after(() => t.close())

// ---- question_demographics ------------------------------------------------------------------------------------

/** The cells of the answers kept (a filter keeps public answers only); unknown ages count in the total, in no cell. */
function expectedLikertCells(keep: (p: Person) => boolean, filtered = false) {
  const answers = likertAnswers.filter((a) => keep(a.person) && !(filtered && a.private))
  const counts = tally(
    answers.filter((a) => band(a.person.dob, ANSWERED_AT) !== null).map((a) => [band(a.person.dob, ANSWERED_AT), a.person.gender, a.value]),
  )
  return {
    total_votes: answers.length,
    cells: sortBy(
      [...counts].map(([key, count]) => {
        const [age_range, user__gender, value] = JSON.parse(key)
        return { id__count: count, age_range, user__gender, value, object__text: null }
      }),
    ),
  }
}

describe('question_demographics', () => {
  test('a likert question: one entry per (age band at answering, gender, value), skips and private answers included; unknown ages only in the total', async () => {
    const body = await t.json(`/api/question_demographics/?question=${likert}`)
    const expected = expectedLikertCells(() => true)
    assert.equal(body.total_votes, expected.total_votes)
    assert.equal(body.total_votes, 11)
    assert.deepEqual(sortBy(body.ageggendervalues), expected.cells)
    // The birthday rule, read off the answer itself.
    const men = body.ageggendervalues.filter((cell: { user__gender: number }) => cell.user__gender === 1)
    assert.deepEqual(sortBy(men.map((cell: { age_range: string }) => cell.age_range)), ['15-25', '25-35'])
    // The web app's chart reads every row's band: the answer of unknown age is in total_votes only.
    assert.ok(body.ageggendervalues.every((cell: { age_range: string | null }) => typeof cell.age_range === 'string'))
    const cells = body.ageggendervalues.reduce((sum: number, cell: { id__count: number }) => sum + cell.id__count, 0)
    assert.equal(cells, body.total_votes - 1)
  })

  test('filters: group members, people of an area, and both; public answers only', async () => {
    const inGroup = await t.json(`/api/question_demographics/?question=${likert}&user__group_memberships__group=${group}`)
    const expectedGroup = expectedLikertCells((p) => p.groups.includes(group), true)
    assert.equal(inGroup.total_votes, expectedGroup.total_votes)
    assert.deepEqual(sortBy(inGroup.ageggendervalues), expectedGroup.cells)

    const north = areas.north.id
    const inArea = await t.json(`/api/question_demographics/?question=${likert}&user__locations__geo=${north}`)
    const expectedArea = expectedLikertCells((p) => p.geos.includes(north), true)
    assert.equal(inArea.total_votes, expectedArea.total_votes)
    assert.deepEqual(sortBy(inArea.ageggendervalues), expectedArea.cells)

    const both = await t.json(
      `/api/question_demographics/?question=${likert}&user__locations__geo=${north}&user__group_memberships__group=${group}`,
    )
    const expectedBoth = expectedLikertCells((p) => p.geos.includes(north) && p.groups.includes(group), true)
    // Three members of the north answered, two of them privately.
    assert.equal(both.total_votes, 1)
    assert.deepEqual(sortBy(both.ageggendervalues), expectedBoth.cells)

    const nobody = await t.json(
      `/api/question_demographics/?question=${likert}&user__group_memberships__group=${otherGroup}&user__locations__geo=${north}`,
    )
    assert.deepEqual(nobody, { total_votes: 0, ageggendervalues: [] })
  })

  test("a multiple-choice question: each cell names its choice's text and the rating given", async () => {
    const body = await t.json(`/api/question_demographics/?question=${mcq}`)
    const text = new Map(choices.map((c) => [c.id, c.text]))
    const known = choiceAnswers.filter((a) => band(a.person.dob, ANSWERED_AT) !== null)
    const counts = tally(known.map((a) => [band(a.person.dob, ANSWERED_AT), a.person.gender, a.value, text.get(a.choice)]))
    const expected = [...counts].map(([key, count]) => {
      const [age_range, user__gender, value, object__text] = JSON.parse(key)
      return { id__count: count, age_range, user__gender, value, object__text }
    })
    assert.equal(body.total_votes, choiceAnswers.length)
    assert.deepEqual(sortBy(body.ageggendervalues), sortBy(expected))
  })

  test('bad input answers 400 naming the field; an unknown or hidden question 404', async () => {
    const cases: [string, string, string][] = [
      ['', 'question', 'This field is required.'],
      ['question=abc', 'question', 'Enter a whole number.'],
      [`question=${likert}&user__group_memberships__group=x`, 'user__group_memberships__group', 'Enter a whole number.'],
      [`question=${likert}&user__locations__geo=1.5`, 'user__locations__geo', 'Enter a whole number.'],
      [
        `question=${likert}&user__group_memberships__group=999999`,
        'user__group_memberships__group',
        'Select a valid choice. That choice is not one of the available choices.',
      ],
      [
        `question=${likert}&user__locations__geo=999999`,
        'user__locations__geo',
        'Select a valid choice. That choice is not one of the available choices.',
      ],
    ]
    for (const [query, field, message] of cases) {
      const response = await t.get(`/api/question_demographics/?${query}`)
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`)
      assert.deepEqual(response.json()[field], [message], query)
    }
    for (const query of ['question=999999', 'question=0', `question=${draft}`]) {
      const response = await t.get(`/api/question_demographics/?${query}`)
      assert.equal(response.statusCode, 404, query)
      assert.deepEqual(response.json(), { detail: 'Not found.' })
    }
    const own = await t.get(`/api/question_demographics/?question=${draft}`, { authorization: `Token ${authorToken}` })
    assert.equal(own.statusCode, 200)
    assert.equal(own.json().total_votes, 1)
    assert.equal((await t.get(`/api/question_demographics/?question=${likert}&format=xml`)).statusCode, 404)
  })

  test('CSV: one row per published cell of the JSON answer, quoted as RFC 4180 says', async () => {
    const response = await t.get(`/api/question_demographics/?question=${mcq}&format=csv`)
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8')
    assert.ok(response.body.startsWith('age_range,gender,choice_id,choice_text,value,skipped,count,suppressed\r\n'))
    assert.ok(response.body.includes('"Rail, ""fast"""'), 'a text with a comma and quotes is quoted')
    const rows = csvObjects(response.body)
    const json = await t.json(`/api/question_demographics/?question=${mcq}`)
    const text = new Map(choices.map((c) => [String(c.id), c.text]))
    assert.deepEqual(
      sortBy(
        rows.map((row) => {
          assert.equal(row.choice_text, text.get(row.choice_id))
          assert.equal(row.skipped, row.value === '' ? 'true' : 'false')
          assert.equal(row.suppressed, 'false')
          return {
            id__count: Number(row.count),
            age_range: row.age_range,
            user__gender: Number(row.gender),
            value: row.value === '' ? null : Number(row.value),
            object__text: row.choice_text,
          }
        }),
      ),
      sortBy(json.ageggendervalues),
    )
  })

  test('a constant number of statements, however many answers', async () => {
    const small = await t.get(`/api/question_demographics/?question=${draft}&user__group_memberships__group=${group}`, {
      authorization: `Token ${authorToken}`,
    })
    const large = await t.get(`/api/question_demographics/?question=${likert}&user__group_memberships__group=${group}`, {
      authorization: `Token ${authorToken}`,
    })
    assert.equal(small.statusCode, 200)
    assert.ok(Number(large.headers['x-query-count']) > 0)
    assert.ok(Number(large.headers['x-query-count']) <= 4, `statements: ${large.headers['x-query-count']}`)
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })
})

// ---- users/demographics ----------------------------------------------------------------------------------------

describe('users/demographics', () => {
  async function expectedPeople(area?: number) {
    const rows = await db().selectFrom('users').select(['id', 'dob', 'gender', 'is_active', 'is_deleted']).execute()
    const geos = await db().selectFrom('user_geos').select(['user_id', 'area_id']).execute()
    const today = new Date()
    const counted = rows.filter(
      (row) => row.is_active && !row.is_deleted && (area === undefined || geos.some((g) => g.user_id === row.id && g.area_id === area)),
    )
    const counts = tally(counted.map((row) => [ageGroup(row.dob === null ? null : String(row.dob).slice(0, 10), today), row.gender]))
    return sortBy(
      [...counts].map(([key, id__count]) => {
        const [age_group, gender] = JSON.parse(key)
        return { age_group, gender, id__count }
      }),
    )
  }

  test('active people by age group today and gender; no date of birth: age_group null', async () => {
    const body = await t.json('/api/users/demographics/')
    assert.ok(Array.isArray(body))
    assert.deepEqual(sortBy(body), await expectedPeople())
    assert.equal(
      body.reduce((sum: number, cell: { id__count: number }) => sum + cell.id__count, 0),
      (await t.json('/api/user_count/')).result,
    )
    assert.ok(body.some((cell: { age_group: number | null }) => cell.age_group === null))
  })

  test('people of one area; an unknown area or a bad id answers 400', async () => {
    const south = areas.south.id
    const body = await t.json(`/api/users/demographics/?locations__geo=${south}`)
    const expected = await expectedPeople(south)
    assert.deepEqual(sortBy(body), expected)
    // The turning-25 person and the non-answering one: the inactive and deleted people of the area are left out.
    assert.equal(
      expected.reduce((sum, cell) => sum + cell.id__count, 0),
      2,
    )
    const unknown = await t.get('/api/users/demographics/?locations__geo=999999')
    assert.equal(unknown.statusCode, 400)
    assert.deepEqual(unknown.json(), { locations__geo: ['Select a valid choice. That choice is not one of the available choices.'] })
    const bad = await t.get('/api/users/demographics/?locations__geo=north')
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(bad.json(), { locations__geo: ['Enter a whole number.'] })
  })

  test('a constant number of statements', async () => {
    const all = await t.get('/api/users/demographics/')
    const one = await t.get(`/api/users/demographics/?locations__geo=${areas.town.id}`)
    assert.ok(Number(all.headers['x-query-count']) <= 2, `statements: ${all.headers['x-query-count']}`)
    assert.ok(Number(one.headers['x-query-count']) <= 3, `statements: ${one.headers['x-query-count']}`)
  })
})

// ---- question_geographics --------------------------------------------------------------------------------------

/** A person's areas: their user_geos and their country, region and district, each once. */
const placesOf = (p: Person) => [...new Set([...p.geos, p.country, p.region, p.district].filter((id): id is number => id !== null))]

function family(values: (number | null)[]) {
  const counts = [1, 2, 3, 4, 5].map((level) => values.filter((v) => v === level).length)
  const n = counts.reduce((a, b) => a + b, 0)
  const sum = counts.reduce((a, c, i) => a + c * (i + 1), 0)
  return {
    direct_minimum: counts[0],
    direct_low: counts[1],
    direct_medium: counts[2],
    direct_high: counts[3],
    direct_maximum: counts[4],
    direct_skipped: values.filter((v) => v === null).length,
    direct_vote_count: n,
    direct_sum: sum,
    direct_value: n === 0 ? 0 : sum / n,
  }
}

describe('question_geographics', () => {
  test('a likert question: every area with respondents, its counts and direct figures', async () => {
    const body = await t.json(`/api/question_geographics/?question=${likert}`)
    assert.equal(body.question, likert)
    assert.equal(body.subtype, 'likert')
    const byArea = new Map<number, (number | null)[]>()
    for (const answer of likertAnswers)
      for (const area of placesOf(answer.person)) byArea.set(area, [...(byArea.get(area) ?? []), answer.value])
    assert.deepEqual(
      body.results.map((r: { area: { id: number } }) => r.area.id),
      [...byArea.keys()].sort((a, b) => a - b),
    )
    assert.ok(!body.results.some((r: { area: { id: number } }) => r.area.id === areas.unused.id))
    for (const result of body.results) {
      const values = byArea.get(result.area.id)!
      const area = Object.values(areas).find((a) => a.id === result.area.id)!
      assert.deepEqual(result.area, { id: area.id, name: area.name, code: area.code, m_type: area.m_type, parent: area.parent })
      assert.equal(result.count, values.length)
      assert.equal(result.skipped, values.filter((v) => v === null).length)
      const expected = family(values)
      for (const [field, value] of Object.entries(expected)) {
        if (field === 'direct_value') assert.ok(Math.abs(result[field] - value) < 1e-12, `${field}: ${result[field]} vs ${value}`)
        else assert.equal(result[field], value, `${result.area.name} ${field}`)
      }
      assert.equal(typeof result.direct_consensus, 'number')
      assert.equal(typeof result.direct_heat, 'number')
      assert.equal(result.choices, null)
    }
    // The country: the ten people with a country (the unknown person has none).
    const country = body.results.find((r: { area: { id: number } }) => r.area.id === areas.country.id)
    assert.equal(country.count, 10)
  })

  test('a multiple-choice question: the counts and figures of every choice in each area', async () => {
    const body = await t.json(`/api/question_geographics/?question=${mcq}`)
    assert.equal(body.subtype, 'mcq')
    for (const result of body.results) {
      const here = choiceAnswers.filter((a) => placesOf(a.person).includes(result.area.id))
      assert.equal(result.count, here.length)
      assert.equal(result.skipped, here.filter((a) => a.value === null).length)
      // As on the question itself, choice answers count for their choices, not for the question's direct family.
      assert.deepEqual([result.direct_vote_count, result.direct_skipped], [0, 0])
      assert.deepEqual(
        result.choices.map((c: { id: number; text: string; count: number }) => [c.id, c.text, c.count]),
        choices.map((c) => [c.id, c.text, here.filter((a) => a.choice === c.id).length]),
      )
      for (const choice of result.choices) {
        const expected = family(here.filter((a) => a.choice === choice.id).map((a) => a.value))
        for (const [field, value] of Object.entries(expected)) assert.ok(Math.abs(choice[field] - value) < 1e-12, `${field}`)
      }
    }
  })

  test('GeoJSON: a FeatureCollection with one Point [longitude, latitude] per area and the same figures', async () => {
    const response = await t.get(`/api/question_geographics/?question=${likert}&format=geojson`)
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^application\/geo\+json/)
    const collection = response.json()
    const json = await t.json(`/api/question_geographics/?question=${likert}`)
    assert.equal(collection.type, 'FeatureCollection')
    assert.equal(collection.features.length, json.results.length)
    for (const [i, feature] of collection.features.entries()) {
      const result = json.results[i]
      const area = Object.values(areas).find((a) => a.id === result.area.id)!
      assert.equal(feature.type, 'Feature')
      assert.deepEqual(feature.geometry, { type: 'Point', coordinates: [area.longitude, area.latitude] })
      assert.equal(feature.properties.area_id, area.id)
      assert.equal(feature.properties.area_name, area.name)
      assert.equal(feature.properties.count, result.count)
      assert.equal(feature.properties.direct_high, result.direct_high)
      assert.equal(feature.properties.direct_value, result.direct_value)
    }
  })

  test('CSV: one row per (area, choice, value) of the published areas, the counts behind their figures', async () => {
    const response = await t.get(`/api/question_geographics/?question=${likert}&format=csv`)
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8')
    const rows = csvObjects(response.body)
    const counts = tally(
      likertAnswers.flatMap((a) => placesOf(a.person).map((area) => [String(area), a.value === null ? '' : String(a.value)])),
    )
    assert.equal(rows.length, counts.size)
    for (const row of rows) {
      const count = counts.get(JSON.stringify([row.area_id, row.value]))!
      assert.ok(count)
      assert.equal(row.choice_id, '')
      assert.deepEqual([row.count, row.suppressed], [String(count), 'false'])
    }
  })

  test('bad input: 400 naming the question, 404 for an unknown or hidden one, an unknown format 404', async () => {
    assert.deepEqual((await t.get('/api/question_geographics/')).json(), { question: ['This field is required.'] })
    assert.deepEqual((await t.get('/api/question_geographics/?question=-1')).json(), {
      question: ['Ensure this value is greater than or equal to 0.'],
    })
    assert.equal((await t.get('/api/question_geographics/?question=999999')).statusCode, 404)
    assert.equal((await t.get(`/api/question_geographics/?question=${draft}`)).statusCode, 404)
    assert.equal((await t.get(`/api/question_geographics/?question=${likert}&format=shp`)).statusCode, 404)
  })

  test('a constant number of statements, however many areas and answers', async () => {
    const small = await t.get(`/api/question_geographics/?question=${draft}`, { authorization: `Token ${authorToken}` })
    const large = await t.get(`/api/question_geographics/?question=${mcq}`, { authorization: `Token ${authorToken}` })
    assert.equal(small.statusCode, 200)
    assert.ok(Number(large.headers['x-query-count']) <= 4, `statements: ${large.headers['x-query-count']}`)
    const likertLarge = await t.get(`/api/question_geographics/?question=${likert}`, { authorization: `Token ${authorToken}` })
    assert.equal(small.headers['x-query-count'], likertLarge.headers['x-query-count'])
  })
})

describe('statements per breakdown', () => {
  test('anonymous callers: the question, the filters named, one grouped statement (and the choices of a multiple-choice map)', async () => {
    const count = async (url: string) => Number((await t.get(url)).headers['x-query-count'])
    assert.equal(await count(`/api/question_demographics/?question=${likert}`), 2)
    assert.equal(
      await count(
        `/api/question_demographics/?question=${likert}&user__group_memberships__group=${group}&user__locations__geo=${areas.north.id}`,
      ),
      3,
    )
    assert.equal(await count(`/api/question_demographics/?question=${mcq}&format=csv`), 2)
    assert.equal(await count('/api/users/demographics/'), 1)
    assert.equal(await count(`/api/users/demographics/?locations__geo=${areas.north.id}`), 2)
    assert.equal(await count(`/api/question_geographics/?question=${likert}&format=geojson`), 2)
    assert.equal(await count(`/api/question_geographics/?question=${mcq}&format=csv`), 3)
  })
})
