import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Kysely } from 'kysely'
import type { Database } from '../../src/db/database.ts'
import { recomputeStatistics } from '../../src/engines/figures/recompute.ts'
import { loadQuestions, overallResult, weightedQuestionResult } from '../../src/modules/weighting/weighting.service.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser, censusAges } from '../helpers/fixtures.ts'

/**
 * survey_results and survey_results_all through HTTP on data inserted here: each likert question's figures
 * are those of question_weighted_demographics' `overall` for the same question, the direct counts and the
 * choices' picks are counted here from the answers given, the CSV's suppression is worked out by hand. The
 * arithmetic is checked with MIN_CELL_SIZE=1 (`t1`, on the same database: every answer counted, every level with
 * answers published); what the default of 5 changes (`t`) is worked out by hand.
 */

const ANSWERED_AT = new Date('2024-06-01T12:00:00Z')
const AGED_24 = '2000-01-01'
const AGED_40 = '1984-01-01'
const AGED_60 = '1964-01-01'

let t: TestApp
let t1: TestApp
let db: Kysely<Database>
let author: number
let other: number
let otherToken: string
let collection: number
let small: number
let big: number
let few: number
let mcq: number
let draft: number
/** big's public answers only, as a draft of its author's: the figures big shows at the default cell size. */
let bigPublic: number
let authorToken: string
let choices: { id: number; text: string }[]
/** The ratings given to each likert question (null for a skip), in the order given. */
const given = new Map<number, (number | null)[]>()
/** The picks of the multiple-choice question by choice index (skips apart). */
const picks = [5, 3, 6]
const mcqSkips = 2

before(async () => {
  t = await createTestApp('empty')
  t1 = await createTestApp('empty', { MIN_CELL_SIZE: '1' }, undefined, { database: t.database })
  db = t.database.db
  const area = (code: string) =>
    db
      .insertInto('areas')
      .values({ code, name: `Region ${code}`, m_type: 'region' })
      .returning('id')
      .executeTakeFirstOrThrow()
  const r1 = (await area('SR-R1')).id
  const r2 = (await area('SR-R2')).id
  const census = (area_id: number, people: Record<number, number>) => {
    const ages = censusAges(people)
    return db
      .insertInto('census_data')
      .values({ area_id, code: `SR${area_id}`, name: 'census', date: '2021-03-21', ages, all_ages: ages.reduce((s, v) => s + v, 0) })
      .execute()
  }
  await census(r1, { 24: 2000, 40: 1500, 60: 4000 })
  await census(r2, { 24: 3000, 40: 1000, 60: 1000 })
  author = (await insertUser(db)).id
  authorToken = await t.tokenFor(author)
  other = (await insertUser(db)).id
  otherToken = await t.tokenFor(other)
  big = (await insertQuestion(db, author, { publish: true })).id
  few = (await insertQuestion(db, author, { publish: true })).id
  mcq = (await insertQuestion(db, author, { publish: true, subtype: 'mcq' })).id
  draft = (await insertQuestion(db, other, { publish: false })).id
  small = (await insertQuestion(db, author, { publish: true })).id
  bigPublic = (await insertQuestion(db, author, { publish: false })).id

  const people = [
    { dob: AGED_24, region_id: r1 },
    { dob: AGED_40, region_id: r1 },
    { dob: AGED_60, region_id: r1 },
    { dob: AGED_24, region_id: r2 },
    { dob: AGED_40, region_id: r2 },
    { dob: AGED_60, region_id: r2 },
    { dob: null, region_id: r1 },
    { dob: AGED_24, region_id: null },
  ]
  const users: number[] = []
  for (let i = 0; i < 24; i++) users.push((await insertUser(db, people[i % people.length])).id)
  // Every seventh person (0, 7, 14) answers privately.
  const rate = async (question: number, ratings: (number | null)[], publicOnly = false) => {
    given.set(
      question,
      ratings.filter((_, i) => !publicOnly || i % 7 !== 0),
    )
    for (const [i, value] of ratings.entries()) {
      if (publicOnly && i % 7 === 0) continue
      await db
        .insertInto('question_votes')
        .values({ user_id: users[i], question_id: question, value, skipped: value === null, created_at: ANSWERED_AT, private: i % 7 === 0 })
        .execute()
    }
  }
  // big: level 1 six times, 2 five times, 3 twice, 4 seven times, 5 never, and a skip; 3 of them private.
  const bigRatings = [1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 2, 4, 1, 3, 4, 3, 4, null]
  await rate(big, bigRatings)
  await rate(bigPublic, bigRatings, true)
  await rate(few, [5, 4, null])
  await rate(draft, [2, 2, 3])
  choices = []
  for (const [i, text] of ['Tram', 'Bus, "rapid"', 'Bike'].entries())
    choices.push(
      await db
        .insertInto('question_choices')
        .values({ question_id: mcq, text, store_number: i })
        .returning(['id', 'text'])
        .executeTakeFirstOrThrow(),
    )
  let next = 0
  for (const [i, n] of picks.entries())
    for (let k = 0; k < n; k++)
      await db
        .insertInto('question_choice_votes')
        .values({ user_id: users[next++], question_id: mcq, choice_id: choices[i].id, value: 5, created_at: ANSWERED_AT })
        .execute()
  for (let k = 0; k < mcqSkips; k++)
    await db
      .insertInto('question_choice_votes')
      .values({ user_id: users[next++], question_id: mcq, choice_id: choices[0].id, value: null, skipped: true })
      .execute()

  // The answers were inserted as rows: the stored figures (behind the listing's order) are rebuilt from them.
  await recomputeStatistics(db)
  collection = (
    await db.insertInto('question_collections').values({ user_id: author, name: 'Transport' }).returning('id').executeTakeFirstOrThrow()
  ).id
  const item = (question: number | null, order: number) =>
    db
      .insertInto('question_collection_items')
      .values({
        parent_id: collection,
        type: question === null ? 'B' : 'Q',
        question_id: question,
        content: question === null ? JSON.stringify({ title: 'Break', text: '' }) : null,
        order,
      })
      .execute()
  // Item order differs from id order: few, mcq, a break, the other user's draft, big, small (no answers).
  await item(few, 0)
  await item(mcq, 1)
  await item(null, 2)
  await item(draft, 3)
  await item(big, 4)
  await item(small, 5)
})
after(async () => {
  await t1?.close()
  await t?.close()
})

/** The direct figures expected from the ratings given: counts per level, and shares of the ratings. */
function expectedCounts(ratings: (number | null)[]) {
  const rated = ratings.filter((r) => r !== null)
  const counts = Object.fromEntries([1, 2, 3, 4, 5].map((level) => [String(level), rated.filter((r) => r === level).length]))
  return {
    counts,
    n: rated.length,
    skipped: ratings.length - rated.length,
    mean: rated.length ? rated.reduce((s, r) => s + r, 0) / rated.length : null,
  }
}

test('a collection: its visible questions in item order, each likert one as question_weighted_demographics weights it', async () => {
  const body = await t1.json(`/api/survey_results/?collection=${collection}`)
  assert.equal(body.collection.id, collection)
  assert.equal(body.collection.name, 'Transport')
  assert.match(body.collection.url, new RegExp(`/api/question_collections/${collection}/$`))
  // The break is not a question; the other user's draft is hidden from an anonymous caller.
  assert.deepEqual(
    body.results.map((r: { id: number }) => r.id),
    [few, mcq, big, small],
  )
  assert.equal(body.count, 4)
  for (const result of body.results.filter((r: { subtype: string }) => r.subtype === 'likert')) {
    const { overall } = await t1.json(`/api/question_weighted_demographics/${result.id}/age/`)
    assert.match(result.url, new RegExp(`/api/questions/${result.id}/$`))
    assert.equal(result.sample_size, overall.sample_size)
    assert.equal(result.skipped, overall.skipped)
    assert.equal(result.direct.average_vote, overall.average_vote)
    assert.equal(result.direct.average_vote_margin, overall.average_vote_margin)
    for (const key of [
      'method',
      'partial',
      'trimmed',
      'weighted_sample_size',
      'excluded',
      'effective_sample_size',
      'design_effect',
      'weighted_average_vote',
      'weighted_average_vote_margin',
    ])
      assert.deepEqual(result.weighted[key], overall[key], `${result.id} ${key}`)
    for (const level of ['1', '2', '3', '4', '5']) {
      const share = overall.shares[level]
      // A level nobody chose is left out, even at MIN_CELL_SIZE=1.
      if (share.count === 0) {
        assert.equal(level in result.direct.shares || level in result.weighted.shares, false, `${result.id} ${level}`)
        continue
      }
      assert.deepEqual(result.direct.shares[level], { count: share.count, percentage: share.percentage, margin: share.margin })
      assert.deepEqual(result.weighted.shares[level], {
        weighted_percentage: share.weighted_percentage,
        weighted_margin: share.weighted_margin,
        weighted_count: share.weighted_count,
      })
    }
    assert.equal(result.choices, null)
    // And the direct figures are the answers given, counted here.
    const expected = expectedCounts(given.get(result.id) ?? [])
    assert.equal(result.sample_size, expected.n)
    assert.equal(result.skipped, expected.skipped)
    for (const level of ['1', '2', '3', '4', '5']) {
      assert.equal(result.direct.shares[level]?.count ?? 0, expected.counts[level])
      if (expected.counts[level] > 0)
        assert.ok(Math.abs(result.direct.shares[level].percentage - (100 * expected.counts[level]) / expected.n) < 1e-9)
    }
    if (expected.mean !== null) assert.ok(Math.abs(result.direct.average_vote - expected.mean) < 1e-12)
  }
  const bigResult = body.results.find((r: { id: number }) => r.id === big)
  // 21 answers by people cycling through 8 kinds: the unknown age and the missing region are excluded.
  assert.equal(bigResult.weighted.method !== null, true)
  assert.ok(bigResult.weighted.excluded > 0)
  const none = body.results.find((r: { id: number }) => r.id === small)
  assert.equal(none.sample_size, 0)
  assert.equal(none.direct.average_vote, null)
  assert.equal(none.weighted.method, null)
})

test('at the default cell size a question with 1..4 private answers shows its public answers; small levels are left out', async () => {
  const body = await t.json(`/api/survey_results/?collection=${collection}`)
  const result = body.results.find((r: { id: number }) => r.id === big)
  // big holds 3 private answers (people 0, 7 and 14): fewer than 5, so its figures are those of its 18 public
  // answers, which are bigPublic's (no private answer there): the same weighting of the same respondents.
  const { overall } = await t.json(`/api/question_weighted_demographics/${bigPublic}/age/`, { authorization: `Token ${authorToken}` })
  assert.equal(result.sample_size, 17)
  assert.equal(result.skipped, 1)
  assert.equal(overall.sample_size, 17)
  assert.equal(result.direct.average_vote, overall.average_vote)
  for (const key of [
    'method',
    'weighted_sample_size',
    'excluded',
    'effective_sample_size',
    'weighted_average_vote',
    'weighted_average_vote_margin',
  ])
    assert.deepEqual(result.weighted[key], overall[key], key)
  // Public counts by level: 5, 4, 2, 6, 0 of 17. Levels 2, 3 and 5 are under 5 and left out (together 6, so no
  // further level goes with them); 1 and 4 are published with the figures bigPublic has.
  assert.deepEqual(Object.keys(result.direct.shares), ['1', '4'])
  assert.deepEqual(Object.keys(result.weighted.shares), ['1', '4'])
  for (const level of ['1', '4']) {
    assert.equal(result.direct.shares[level].count, overall.shares[level].count)
    assert.equal(result.direct.shares[level].percentage, overall.shares[level].percentage)
    assert.equal(result.weighted.shares[level].weighted_percentage, overall.shares[level].weighted_percentage)
    assert.equal(result.weighted.shares[level].weighted_count, overall.shares[level].weighted_count)
  }
  // few: one public rating and one public skip (its private rating left out); no level of 5.
  const fewResult = body.results.find((r: { id: number }) => r.id === few)
  assert.deepEqual([fewResult.sample_size, fewResult.skipped, fewResult.direct.average_vote], [1, 1, 4])
  assert.deepEqual([fewResult.direct.shares, fewResult.weighted.shares], [{}, {}])
})

test('a multiple-choice question: picks and shares per choice in their order, skips apart, not weighted', async () => {
  const body = await t.json(`/api/survey_results/?collection=${collection}`)
  const result = body.results.find((r: { id: number }) => r.id === mcq)
  const total = picks.reduce((s, n) => s + n, 0)
  assert.equal(result.subtype, 'mcq')
  assert.equal(result.sample_size, total)
  assert.equal(result.skipped, mcqSkips)
  assert.equal(result.direct, null)
  assert.equal(result.weighted, null)
  // Bus (3 picks) is under 5; Tram (5) goes with it, or the total less Bike would give Bus away.
  assert.deepEqual(result.choices, [{ id: choices[2].id, text: 'Bike', count: 6, percentage: (100 * 6) / total }])
  // Every choice with picks, at MIN_CELL_SIZE=1.
  const all = (await t1.json(`/api/survey_results/?collection=${collection}`)).results.find((r: { id: number }) => r.id === mcq)
  assert.deepEqual(
    all.choices,
    choices.map((choice, i) => ({ id: choice.id, text: choice.text, count: picks[i], percentage: (100 * picks[i]) / total })),
  )
})

test('the author of a draft sees it in the collection; others do not', async () => {
  const body = await t.json(`/api/survey_results/?collection=${collection}`, { authorization: `Token ${otherToken}` })
  assert.deepEqual(
    body.results.map((r: { id: number }) => r.id),
    [few, mcq, draft, big, small],
  )
  // Its one private answer is left out of its figures (fewer than 5).
  assert.equal(body.results[2].sample_size, 2)
})

test('CSV: a header, one row per level or choice, rows under MIN_CELL_SIZE blank and suppressed', async () => {
  const response = await t.get(`/api/survey_results/?collection=${collection}&format=csv`)
  assert.equal(response.statusCode, 200)
  assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8')
  const lines = response.body.split('\r\n')
  assert.equal(lines.pop(), '')
  assert.equal(
    lines[0],
    'question_id,question,subtype,level,choice_id,choice_text,count,percentage,margin,weighted_percentage,weighted_margin,weighted_count,suppressed',
  )
  // few: 5 levels; mcq: 3 choices; big: 5 levels; small: 5 levels.
  assert.equal(lines.length, 1 + 5 + 3 + 5 + 5)
  const json = await t.json(`/api/survey_results/?collection=${collection}`)
  const rowOf = (question: number, level: string) =>
    lines.find((line) => line.startsWith(`${question},`) && line.split(',')[3] === level)!.split(',')
  // big, its public answers (3 private, fewer than 5): levels 2 (4), 3 (2) and 5 (none) are under 5: blank; 1 (5)
  // and 4 (6) published, as in the JSON.
  const bigResult = json.results.find((r: { id: number }) => r.id === big)
  for (const level of ['2', '3', '5']) {
    const row = rowOf(big, level)
    assert.deepEqual(row.slice(6), ['', '', '', '', '', '', 'true'], `level ${level}`)
  }
  for (const level of ['1', '4']) {
    const row = rowOf(big, level)
    const direct = bigResult.direct.shares[level]
    const weighted = bigResult.weighted.shares[level]
    assert.equal(Number(row[6]), { '1': 5, '4': 6 }[level])
    assert.equal(Number(row[7]), direct.percentage)
    assert.equal(Number(row[8]), direct.margin)
    assert.equal(Number(row[9]), weighted.weighted_percentage)
    assert.equal(Number(row[10]), weighted.weighted_margin)
    assert.equal(Number(row[11]), weighted.weighted_count)
    assert.equal(row[12], 'false')
  }
  // few: one rating shown, every level suppressed.
  for (const level of ['1', '2', '3', '4', '5']) assert.equal(rowOf(few, level).at(-1), 'true')
  // mcq: Bus has 3 picks, alone under 5: the smallest other choice (Tram, 5) goes with it, so that the total
  // (readable off Bike's share) less Bike's count does not give Bus's count. Bike (6) is published.
  const mcqLines = lines.filter((line) => line.startsWith(`${mcq},`))
  assert.equal(mcqLines.length, 3)
  const total = picks.reduce((s, n) => s + n, 0)
  assert.equal(mcqLines[0], `${mcq},${json.results[1].question},mcq,,${choices[0].id},Tram,,,,,,,true`)
  assert.equal(mcqLines[1], `${mcq},${json.results[1].question},mcq,,${choices[1].id},"Bus, ""rapid""",,,,,,,true`)
  assert.equal(mcqLines[2], `${mcq},${json.results[1].question},mcq,,${choices[2].id},Bike,6,${(100 * 6) / total},,,,,false`)
})

test('bad or missing collection: 400 naming it; unknown collection: 404', async () => {
  for (const query of ['', 'collection=', 'collection=abc', 'collection=-1', 'collection=1.5', 'collection=99999999999']) {
    const response = await t.get(`/api/survey_results/?${query}`)
    assert.equal(response.statusCode, 400, query)
    assert.ok(Array.isArray(response.json().collection), `${query}: ${response.body}`)
  }
  const missing = await t.get('/api/survey_results/?collection=999999')
  assert.equal(missing.statusCode, 404)
  assert.deepEqual(missing.json(), { detail: 'Not found.' })
  const csv = await t.get('/api/survey_results/?collection=999999&format=csv')
  assert.equal(csv.statusCode, 404)
  const format = await t.get(`/api/survey_results/?collection=${collection}&format=xml`)
  assert.ok(format.statusCode >= 400 && format.statusCode < 500)
})

test('every question: paginated, most answered first, the same figures as the collection', async () => {
  const body = await t.json('/api/survey_results_all/?page_size=100')
  // Anonymous: every published question (the draft is left out). Answers: big 21, mcq 16, few 3, small 0.
  const answers = new Map([
    [big, given.get(big)!.length],
    [mcq, picks.reduce((s, n) => s + n, 0) + mcqSkips],
    [few, given.get(few)!.length],
    [small, 0],
  ])
  const expected = [...answers].sort((a, b) => b[1] - a[1] || b[0] - a[0]).map(([id]) => id)
  assert.equal(body.count, 4)
  assert.deepEqual(
    body.results.map((r: { id: number }) => r.id),
    expected,
  )
  const inCollection = await t.json(`/api/survey_results/?collection=${collection}`)
  for (const result of body.results)
    assert.deepEqual(
      result,
      inCollection.results.find((r: { id: number }) => r.id === result.id),
    )
  const page = await t.json('/api/survey_results_all/?page_size=2&page=2')
  assert.equal(page.count, 4)
  assert.deepEqual(
    page.results.map((r: { id: number }) => r.id),
    expected.slice(2, 4),
  )
  assert.equal(page.next, null)
  assert.match(page.previous, /page_size=2/)
  const mine = await t.json('/api/survey_results_all/?page_size=100', { authorization: `Token ${otherToken}` })
  assert.equal(mine.count, 5)
  assert.ok(mine.results.some((r: { id: number }) => r.id === draft))
  const byId = await t.json('/api/survey_results_all/?ordering=id')
  assert.deepEqual(
    byId.results.map((r: { id: number }) => r.id),
    [...answers.keys()].sort((a, b) => a - b),
  )
  const csv = await t.get('/api/survey_results_all/?format=csv&page_size=1')
  assert.equal(csv.statusCode, 200)
  assert.equal(csv.headers['content-type'], 'text/csv; charset=utf-8')
  assert.equal(csv.body.split('\r\n').filter((line) => line.startsWith(`${expected[0]},`)).length, 5)
  assert.equal((await t.get('/api/survey_results_all/?page=9')).statusCode, 404)
})

test('a constant number of statements, whatever the number of questions', async () => {
  const one = await db.insertInto('question_collections').values({ user_id: author, name: 'One' }).returning('id').executeTakeFirstOrThrow()
  await db
    .insertInto('question_collection_items')
    .values([
      { parent_id: one.id, type: 'Q', question_id: small, order: 0 },
      { parent_id: one.id, type: 'Q', question_id: mcq, order: 1 },
    ])
    .execute()
  const fewer = await t.get(`/api/survey_results/?collection=${one.id}`)
  const more = await t.get(`/api/survey_results/?collection=${collection}`)
  assert.equal(fewer.statusCode, 200)
  assert.ok(Number(more.headers['x-query-count']) <= 5, `${more.headers['x-query-count']} statements`)
  // One likert and one choice question against three likert and one choice question: the same statements.
  assert.equal(fewer.headers['x-query-count'], more.headers['x-query-count'])
  const pageOfOne = await t.get('/api/survey_results_all/?page_size=1')
  const pageOfAll = await t.get('/api/survey_results_all/?page_size=100')
  assert.ok(Number(pageOfAll.headers['x-query-count']) <= 5, `${pageOfAll.headers['x-query-count']} statements`)
  const withMore = await t.get('/api/survey_results_all/?page_size=3')
  assert.equal(withMore.headers['x-query-count'], pageOfAll.headers['x-query-count'])
  assert.ok(Number(pageOfOne.headers['x-query-count']) <= Number(pageOfAll.headers['x-query-count']))
})

test('loadQuestions: one batch gives each question the result loadQuestion gives it alone; nothing for no questions', async () => {
  const ids = [big, few, small, draft, mcq]
  const batch = await loadQuestions(db, ids)
  assert.deepEqual([...batch.keys()], ids)
  const options = { weightCap: 5, minCellSize: 5 }
  for (const id of ids)
    assert.deepEqual(overallResult(batch.get(id)!, options), await weightedQuestionResult(db, id, options), `question ${id}`)
  assert.equal(batch.get(mcq)!.respondents.length, 0)
  assert.equal((await loadQuestions(db, [])).size, 0)
})
