import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser, censusAges } from '../helpers/fixtures.ts'

/**
 * question_weighted_demographics through HTTP, on data inserted here and small enough that every weighted
 * figure is worked out by hand below (the arithmetic itself is checked against R in test/statistics).
 */

const Z = 1.959963984540054 // qnorm(0.975)
const ANSWERED_AT = new Date('2024-06-01T12:00:00Z')
const close = (actual: number | null, expected: number, label: string) =>
  assert.ok(
    actual !== null && Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected)),
    `${label}: expected ${expected}, got ${actual}`,
  )

let t: TestApp
let post: TestApp
let capped: TestApp
let db: Kysely<Database>
let question: number
let empty: number
let draft: number
let author: number
let r1: number
let r2: number

const ages = censusAges

before(async () => {
  // At the default k (5): u2's private answer is the question's only one, so it counts nowhere, and no age band
  // holds five respondents the release lets through (test/disclosure/demographics-attacks.test.ts tries the rules).
  t = await createTestApp('empty')
  db = t.database.db
  // The same database with nothing withheld (every private answer counts) and every cell large enough to
  // post-stratify; and with weights capped at their mean.
  post = await createTestApp('empty', { MIN_CELL_SIZE: '1' }, undefined, { database: t.database })
  capped = await createTestApp('empty', { WEIGHT_CAP: '1', MIN_CELL_SIZE: '1' }, undefined, { database: t.database })
  const area = (code: string) =>
    db
      .insertInto('areas')
      .values({ code, name: `Region ${code}`, m_type: 'region' })
      .returning('id')
      .executeTakeFirstOrThrow()
  r1 = (await area('WT-R1')).id
  r2 = (await area('WT-R2')).id
  const r3 = (await area('WT-R3')).id // a region without census
  const census = (area_id: number, date: string | null, people: Record<number, number>) => {
    const list = ages(people)
    return db
      .insertInto('census_data')
      .values({ area_id, code: `C${area_id}`, name: 'census', date, ages: list, all_ages: list.reduce((s, v) => s + v, 0) })
      .execute()
  }
  // R1: an older record that must be ignored, and the newest: 600 aged 16 and 2000 aged 24 (band 15-25: 2600),
  // 500 aged 40 (band 35-45), 7000 aged 60.
  await census(r1, '2011-03-27', { 24: 99999, 40: 1 })
  await census(r1, '2021-03-21', { 16: 600, 24: 2000, 40: 500, 60: 7000 })
  // R2: 3000 aged 24, nobody aged 35 to 44.
  await census(r2, '2021-03-21', { 24: 3000 })
  author = (await insertUser(db)).id
  question = (await insertQuestion(db, author, { publish: true })).id
  empty = (await insertQuestion(db, author, { publish: true })).id
  draft = (await insertQuestion(db, author, { publish: false })).id
  const vote = async (values: { dob: string | null; region: number | null }, value: number | null, questionId = question) => {
    const user = await insertUser(db, { dob: values.dob, region_id: values.region })
    await db
      .insertInto('question_votes')
      .values({ user_id: user.id, question_id: questionId, value, skipped: value === null, created_at: ANSWERED_AT, private: value === 3 })
      .execute()
  }
  const aged24 = '2000-01-01' // 24 on 2024-06-01
  const aged40 = '1984-01-01'
  await vote({ dob: aged24, region: r1 }, 5) // u1
  await vote({ dob: aged24, region: r1 }, 3) // u2, a private answer: it counts like any other
  await vote({ dob: aged24, region: r2 }, 1) // u3
  await vote({ dob: aged40, region: r1 }, 4) // u4
  await vote({ dob: null, region: r1 }, 2) // u5: unknown age
  await vote({ dob: aged24, region: null }, 2) // u6: no region
  await vote({ dob: aged24, region: r3 }, 2) // u7: a region without census
  await vote({ dob: aged24, region: r1 }, null) // u8: a skip
  await vote({ dob: aged24, region: r1 }, 4, draft)
})
after(async () => {
  await capped.close()
  await post.close()
  await t.close()
})

test('by age band: one row per band with ratings, post-stratified on region within the band, margins in percentage points', async () => {
  const body = await post.json(`/api/question_weighted_demographics/${question}/age/`)
  assert.equal(body.qid, question)
  assert.deepEqual(
    body.data.map((point: { age: number; age_range: string }) => [point.age, point.age_range]),
    [
      [15, '15-25'],
      [35, '35-45'],
    ],
  )
  const [young, middle] = body.data
  // 15-25: ratings 5, 3 (R1), 1 (R2), 2 (no region), 2 (region without census); the skip is not a rating.
  assert.equal(young.sample_size, 5)
  assert.equal(young.weighted_sample_size, 3)
  close(young.average_vote, (5 + 3 + 1 + 2 + 2) / 5, 'average')
  // Weights: R1 has 600 + 2000 people aged 15 to 24 for two respondents (1300 each), R2 3000 for one.
  close(young.weighted_average_vote, (1300 * 5 + 1300 * 3 + 3000 * 1) / 5600, 'weighted average')
  close(young.weighted_vote_breakdown['1'], (100 * 3000) / 5600, 'share 1')
  close(young.weighted_vote_breakdown['3'], (100 * 1300) / 5600, 'share 3')
  close(young.weighted_vote_breakdown['5'], (100 * 1300) / 5600, 'share 5')
  assert.equal(young.weighted_vote_breakdown['2'], 0)
  assert.equal(young.weighted_vote_breakdown['4'], 0)
  // Unweighted: the largest share is 2/5 (level 2): SE √(p(1−p)/(n−1)).
  close(young.error_margin, 100 * Z * Math.sqrt((0.4 * 0.6) / 4), 'error margin')
  // Weighted, post-stratified on region: the level-5 and level-3 indicators differ only inside R1's cell, whose
  // within-cell residuals are ±1300·0.5/5600; R2's single respondent has none: var = 3/2·2·(650/5600)².
  close(young.error_margin_weighted, 100 * Z * Math.sqrt(1.5 * 2 * (650 / 5600) ** 2), 'weighted error margin')
  close(young.effective_sample_size, 5600 ** 2 / (1300 ** 2 + 1300 ** 2 + 3000 ** 2), 'n_eff')
  // 35-45: one respondent, no margin.
  assert.equal(middle.sample_size, 1)
  assert.equal(middle.average_vote, 4)
  assert.equal(middle.weighted_average_vote, 4)
  assert.equal(middle.error_margin, null)
  assert.equal(middle.error_margin_weighted, null)
  assert.deepEqual(middle.weighted_vote_breakdown, { '1': 0, '2': 0, '3': 0, '4': 100, '5': 0 })
})

test('at the default k: no band row (15-25 holds 5 public answers, but the 2 left beside it would be derivable)', async () => {
  const body = await t.json(`/api/question_weighted_demographics/${question}/age/`)
  assert.deepEqual(body.data, [])
})

test('overall: raked on age band and region when a cell is small, excluded and skipped counted apart; one private answer counts nowhere', async () => {
  const { overall } = await t.json(`/api/question_weighted_demographics/${question}/age/`)
  // Public ratings 5, 1, 4, 2, 2, 2 (u2's private 3 is left out); weighted: u1 (15-25, R1), u3 (15-25, R2), u4 (35-45, R1).
  assert.equal(overall.sample_size, 6)
  assert.equal(overall.skipped, 1)
  assert.equal(overall.weighted_sample_size, 3)
  assert.equal(overall.excluded, 3)
  assert.equal(overall.method, 'raked')
  assert.equal(overall.trimmed, false)
  close(overall.average_vote, 16 / 6, 'average')
  // Targets: band 15-25 2600 + 3000, band 35-45 500 (R2 has nobody there); R1 2600 + 500, R2 3000. The only
  // weights meeting them: u4 500, u3 3000, u1 2600.
  const w = [2600, 3000, 500]
  const total = 6100
  close(overall.weighted_average_vote, (2600 * 5 + 3000 * 1 + 500 * 4) / total, 'weighted average')
  close(overall.effective_sample_size, total ** 2 / w.reduce((s, v) => s + v * v, 0), 'n_eff')
  close(overall.design_effect, 3 / (total ** 2 / w.reduce((s, v) => s + v * v, 0)), 'design effect')
  close(overall.shares['5'].weighted_percentage, (100 * 2600) / total, 'weighted share 5')
  close(overall.shares['5'].weighted_count, 2600, 'weighted count 5')
  close(overall.shares['2'].percentage, 50, 'share 2')
  assert.equal(overall.shares['2'].count, 3)
  assert.equal(overall.shares['3'].count, 0)
  assert.equal(overall.shares['2'].weighted_percentage, 0)
  close(overall.shares['2'].margin, 100 * Z * Math.sqrt((0.5 * 0.5) / 5), 'share 2 margin')
  // Each cell holds one respondent: nothing varies within the cells the margins tell apart (ten passes of
  // residualising over the margins, as R makes, leave a few millionths).
  assert.ok(overall.weighted_average_vote_margin >= 0 && overall.weighted_average_vote_margin < 1e-5, 'weighted mean margin')
  close(overall.average_vote_margin, Z * Math.sqrt([5, 1, 4, 2, 2, 2].reduce((s, y) => s + (y - 16 / 6) ** 2, 0) / 5 / 6), 'mean margin')
})

test('overall post-stratified when every cell is large enough (MIN_CELL_SIZE=1): within-cell residuals', async () => {
  const { overall } = await post.json(`/api/question_weighted_demographics/${question}/age/`)
  assert.equal(overall.method, 'post-stratified')
  close(overall.weighted_average_vote, 15400 / 6100, 'weighted average')
  // Only the cell 15-25 x R1 has two respondents (5 and 3, mean 4): residuals ±1 · 1300 / 6100.
  close(overall.weighted_average_vote_margin, Z * Math.sqrt((4 / 3) * 2 * (1300 / 6100) ** 2), 'mean margin')
})

test('trimming: with WEIGHT_CAP=1 every weight is the mean weight', async () => {
  const body = await capped.json(`/api/question_weighted_demographics/${question}/age/`)
  assert.equal(body.overall.trimmed, true)
  close(body.overall.weighted_average_vote, (5 + 3 + 1 + 4) / 4, 'overall')
  close(body.overall.effective_sample_size, 4, 'n_eff')
  close(body.data[0].weighted_average_vote, (5 + 3 + 1) / 3, 'age 24')
  close(body.overall.shares['5'].weighted_count, 6100 / 4, 'the total is kept')
})

test('by area: post-stratified on age band to each region’s newest census; weighted_raw the people', async () => {
  const body = await post.json(`/api/question_weighted_demographics/${question}/area/`)
  assert.equal(body.qid, question)
  assert.deepEqual(
    body.data.map((point: { region_id: number }) => point.region_id),
    [r1, r2],
  )
  const [one, two] = body.data
  // R1: band 15-25 has 600 + 2000 people for u1 and u2 (1300 each), band 35-45 500 for u4.
  assert.equal(one.sample_size, 3)
  close(one.weighted_vote_breakdown['5'].weighted_raw, 1300, 'raw 5')
  close(one.weighted_vote_breakdown['3'].weighted_raw, 1300, 'raw 3')
  close(one.weighted_vote_breakdown['4'].weighted_raw, 500, 'raw 4')
  assert.equal(one.weighted_vote_breakdown['1'].weighted_raw, 0)
  close(one.weighted_vote_breakdown['5'].percentage, (100 * 1300) / 3100, 'percentage 5')
  close(one.weighted_vote_breakdown['4'].percentage, (100 * 500) / 3100, 'percentage 4')
  // Levels 5 and 3 vary only inside the 15-25 cell: residuals ±1300·0.5/3100; var = 3/2 · 2 · (650/3100)².
  close(one.error_margin, 100 * Z * Math.sqrt(3) * (650 / 3100), 'error margin')
  close(one.weighted_average_vote, (1300 * 5 + 1300 * 3 + 500 * 4) / 3100, 'weighted average')
  assert.equal(two.sample_size, 1)
  assert.deepEqual(two.weighted_vote_breakdown['1'], { percentage: 100, weighted_raw: 3000 })
  assert.equal(two.error_margin, null)
})

test('by area with voter_age__gte / voter_age__lte: public answers of those ages, bands clipped to them', async () => {
  const older = await post.json(`/api/question_weighted_demographics/${question}/area/?voter_age__gte=30`)
  assert.deepEqual(
    older.data.map((point: { region_id: number }) => point.region_id),
    [r1],
  )
  assert.deepEqual(older.data[0].weighted_vote_breakdown['4'], { percentage: 100, weighted_raw: 500 })
  assert.equal(older.overall.sample_size, 1)
  // 20 to 24: band 15-25 clipped to 20-24 holds R1's 2000 people aged 24, not the 600 aged 16; u2's private
  // answer is left out of a range the caller chose, so u1 stands for them all.
  const young = await post.json(`/api/question_weighted_demographics/${question}/area/?voter_age__gte=20&voter_age__lte=24`)
  const [one, two] = young.data
  assert.equal(one.sample_size, 1)
  assert.deepEqual(one.weighted_vote_breakdown['5'], { percentage: 100, weighted_raw: 2000 })
  assert.deepEqual(two.weighted_vote_breakdown['1'], { percentage: 100, weighted_raw: 3000 })
  const none = await post.json(`/api/question_weighted_demographics/${question}/area/?voter_age__gte=100`)
  assert.deepEqual(none.data, [])
  assert.equal(none.overall.sample_size, 0)
})

test('a question without answers: empty data, null means, zero counts', async () => {
  const age = await t.json(`/api/question_weighted_demographics/${empty}/age/`)
  assert.deepEqual(age.data, [])
  assert.equal(age.overall.sample_size, 0)
  assert.equal(age.overall.average_vote, null)
  assert.equal(age.overall.weighted_average_vote, null)
  assert.equal(age.overall.method, null)
  assert.equal(age.overall.design_effect, null)
  assert.equal(age.overall.shares['1'].percentage, null)
  const area = await t.json(`/api/question_weighted_demographics/${empty}/area/`)
  assert.deepEqual(area.data, [])
})

test('the older ?question= form answers as /age/; question missing, malformed or unknown answers 400 naming it', async () => {
  const legacy = await t.json(`/api/question_weighted_demographics/?question=${question}`)
  assert.deepEqual(legacy, await t.json(`/api/question_weighted_demographics/${question}/age/`))
  for (const url of [
    '/api/question_weighted_demographics/',
    '/api/question_weighted_demographics/?question=abc',
    '/api/question_weighted_demographics/?question=99999999',
    `/api/question_weighted_demographics/?question=${draft}`,
  ]) {
    const response = await t.get(url)
    assert.equal(response.statusCode, 400, url)
    assert.ok(Array.isArray(response.json().question), `${url}: ${response.body}`)
  }
})

test('unknown and unseen questions answer 404; the author and staff see their draft', async () => {
  for (const path of ['age', 'area']) {
    const unknown = await t.get(`/api/question_weighted_demographics/99999999/${path}/`)
    assert.equal(unknown.statusCode, 404)
    assert.deepEqual(unknown.json(), { detail: 'Not found.' })
    assert.equal((await t.get(`/api/question_weighted_demographics/${draft}/${path}/`)).statusCode, 404)
    const token = await t.tokenFor(author)
    const mine = await t.get(`/api/question_weighted_demographics/${draft}/${path}/`, { authorization: `Token ${token}` })
    assert.equal(mine.statusCode, 200)
    assert.equal(mine.json().overall.sample_size, 1)
  }
})

test('bad age filters answer 400 naming the field', async () => {
  for (const [query, field] of [
    ['voter_age__gte=abc', 'voter_age__gte'],
    ['voter_age__lte=1.5', 'voter_age__lte'],
    ['voter_age__gte=-1', 'voter_age__gte'],
    ['voter_age__lte=151', 'voter_age__lte'],
    ['voter_age__gte=40&voter_age__lte=30', 'voter_age__gte'],
  ]) {
    const response = await t.get(`/api/question_weighted_demographics/${question}/area/?${query}`)
    assert.equal(response.statusCode, 400, query)
    assert.ok(Array.isArray(response.json()[field]), `${query}: ${response.body}`)
  }
})

test('a constant number of statements, whatever the number of answers', async () => {
  for (const [path, most] of [
    ['age', 3],
    ['area', 4], // and the map's release of the regions
  ] as const) {
    const small = await t.get(`/api/question_weighted_demographics/${empty}/${path}/`)
    const large = await t.get(`/api/question_weighted_demographics/${question}/${path}/`)
    assert.ok(Number(large.headers['x-query-count']) > 0)
    assert.ok(Number(large.headers['x-query-count']) <= most, `${large.headers['x-query-count']} statements`)
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  }
})

test('?format=svg draws the JSON answer: each share as answered and weighted, each band’s weighted mean, written beside its mark', async () => {
  const url = `/api/question_weighted_demographics/${question}/age/`
  const body = await post.json(url)
  const svg = await post.get(`${url}?format=svg`)
  assert.equal(svg.statusCode, 200)
  assert.match(svg.headers['content-type'] as string, /^image\/svg\+xml/)
  const drawn = (pattern: RegExp) => [...svg.body.matchAll(pattern)].map((m) => m.slice(1))
  const written = (value: number | null, unit = '%') => (value === null ? '–' : `${Math.round(value * 10) / 10}${unit}`)
  const bars = drawn(/<g class="bar" data-level="(\d)" data-kind="(\w+)">.*?<text class="value"[^>]*>([^<]*)<\/text><\/g>/g)
  const expected = ['1', '2', '3', '4', '5'].flatMap((level) => {
    const share = body.overall.shares[level]
    return [
      ...(share.percentage === null ? [] : [[level, 'answered', written(share.percentage)]]),
      ...(share.weighted_percentage === null ? [] : [[level, 'weighted', written(share.weighted_percentage)]]),
    ]
  })
  assert.ok(expected.length > 0)
  assert.deepEqual(bars, expected)
  const bands = drawn(/<g class="band" data-age="([^"]+)">.*?<text class="value"[^>]*>([^<]*)<\/text><\/g>/g)
  assert.deepEqual(
    bands,
    body.data.map((point: { age_range: string; weighted_average_vote: number | null; average_vote: number | null }) => [
      point.age_range.replaceAll('<', '&lt;'),
      written(point.weighted_average_vote ?? point.average_vote, ''),
    ]),
  )
  // An unknown format is 404, as DRF answers it.
  assert.equal((await post.get(`${url}?format=png`)).statusCode, 404)
})

test('by area ?format=svg draws each region’s weighted mean and the whole question’s, as the JSON serves them', async () => {
  const url = `/api/question_weighted_demographics/${question}/area/`
  const body = await post.json(url)
  const svg = await post.get(`${url}?format=svg`)
  assert.equal(svg.statusCode, 200)
  assert.match(svg.headers['content-type'] as string, /^image\/svg\+xml/)
  const written = (value: number | null) => (value === null ? '–' : `${Math.round(value * 10) / 10}`)
  const rows = [
    ...svg.body.matchAll(/<g class="band" data-region="(\w+)"><text[^>]*>([^<]*)<\/text>.*?<text class="value"[^>]*>([^<]*)<\/text><\/g>/g),
  ]
  type Point = { region_id: number; sample_size: number; weighted_average_vote: number | null; average_vote: number | null }
  // Each region by its name (the JSON carries its id).
  const names = new Map(
    (await db.selectFrom('areas').select(['id', 'name']).execute()).map((area) => [area.id, area.name.replaceAll('&', '&amp;')]),
  )
  assert.deepEqual(
    rows.map((m) => m.slice(1)),
    [
      ['all', `all (n = ${body.overall.sample_size})`, written(body.overall.weighted_average_vote ?? body.overall.average_vote)],
      ...body.data.map((point: Point) => [
        String(point.region_id),
        `${names.get(point.region_id)} (n = ${point.sample_size})`,
        written(point.weighted_average_vote ?? point.average_vote),
      ]),
    ],
  )
  assert.equal(body.data.length, 2)
  // The age filter draws the filtered answer.
  const older = await post.json(`${url}?voter_age__gte=30`)
  const olderSvg = await post.get(`${url}?voter_age__gte=30&format=svg`)
  assert.equal((olderSvg.body.match(/<g class="band"/g) ?? []).length, older.data.length + 1)
  // A long name is shortened to fit beside its mark, and written as text.
  await db.updateTable('areas').set({ name: 'Saint-Jean-sur-Richelieu & <Environs>' }).where('id', '=', r1).execute()
  try {
    const renamed = await post.get(`${url}?voter_age__lte=150&format=svg`)
    assert.match(renamed.body, new RegExp(`data-region="${r1}"><text[^>]*>Saint-Jean-sur-Rich… \\(n = \\d+\\)</text>`))
  } finally {
    await db.updateTable('areas').set({ name: 'Region WT-R1' }).where('id', '=', r1).execute()
  }
})

test('a shared page draws each question weighted by age band and by region, the very pictures, in statements that do not grow with the questions', async () => {
  const token = await post.tokenFor(author)
  const share = async (body: Record<string, unknown>) => {
    const link = await post.send('POST', '/api/create_shareable_link/', body, token)
    assert.equal(link.statusCode, 201, link.body)
    return post.get(new URL(link.json().share_url).pathname, { accept: 'text/html' })
  }
  const page = await share({ question })
  assert.equal(page.statusCode, 200)
  const figures = [...page.body.matchAll(/<figure class="weighted">(<svg[\s\S]*?<\/svg>)\n?<\/figure>/g)].map((m) => m[1].trim())
  const own = await Promise.all(
    ['age', 'area'].map((path) => post.get(`/api/question_weighted_demographics/${question}/${path}/?format=svg`)),
  )
  assert.deepEqual(
    figures,
    own.map((response) => response.body.trim()),
    'by age band, then by region: the pictures the weighted results draw',
  )
  // A question whose map publishes no region shows the picture by age band alone.
  const emptyPage = await share({ question: empty })
  assert.deepEqual(
    [...emptyPage.body.matchAll(/<title id="weighted-(\d+)-(\w+)">/g)].map((m) => m.slice(1)),
    [[String(empty), 'age']],
  )
  // A collection: each question's pictures, in as many statements with two questions as with one.
  const collection = (await post.send('POST', '/api/question_collections/', { name: 'Weighted' }, token)).json().id as number
  const add = async (object_id: number) =>
    assert.equal(
      (await post.send('POST', '/api/question_collection_items/', { parent: collection, object_id, type: 'Q' }, token)).statusCode,
      201,
    )
  await add(question)
  const ofOne = await share({ collection })
  await add(empty)
  const collectionPage = await share({ collection })
  assert.deepEqual(
    [...collectionPage.body.matchAll(/<title id="weighted-(\d+)-(\w+)">/g)].map((m) => m.slice(1)),
    [
      [String(question), 'age'],
      [String(question), 'area'],
      [String(empty), 'age'],
    ],
  )
  const one = Number(ofOne.headers['x-query-count'])
  assert.ok(one > 0)
  assert.equal(Number(collectionPage.headers['x-query-count']), one, 'statements for a collection of one question and of two')
})
