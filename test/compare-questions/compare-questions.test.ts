import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'

/**
 * compare_questions through HTTP on people and answers made here; every expected figure is worked out by hand in
 * the comments from the rows inserted. The arithmetic is checked with MIN_CELL_SIZE=1 (every cell with people
 * published, private pairs counted); what the default cell size withholds is in test/disclosure/crosstab-attacks.test.ts.
 */
let t: TestApp
const db = () => t.database.db

let author: number
let authorToken: string
let otherToken: string
let staffToken: string
let likertA: number
let likertB: number
let unanswered: number
let mcq: number
let draft: number
let choiceX: number
let choiceY: number

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum'].map((label, i) => ({ value: i + 1, choice: null, label }))

async function rate(user: number, question: number, value: number | null, isPrivate = false) {
  await db()
    .insertInto('question_votes')
    .values({ user_id: user, question_id: question, value, skipped: value === null, private: isPrivate })
    .execute()
}

async function pick(user: number, choice: number, value: number | null) {
  await db()
    .insertInto('question_choice_votes')
    .values({ user_id: user, question_id: mcq, choice_id: choice, value, skipped: value === null })
    .execute()
}

before(async () => {
  t = await createTestApp('empty', { MIN_CELL_SIZE: '1' })
  author = (await insertUser(db())).id
  authorToken = await t.tokenFor(author)
  otherToken = await t.tokenFor((await insertUser(db())).id)
  staffToken = await t.tokenFor((await insertUser(db(), { is_staff: true })).id)
  likertA = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  likertB = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  unanswered = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  mcq = (await insertQuestion(db(), author, { subtype: 'mcq' })).id
  draft = (await insertQuestion(db(), author, { publish: false })).id
  // Stored in the order Y, X (store_number), inserted X first: the rows follow store_number.
  choiceX = (
    await db()
      .insertInto('question_choices')
      .values({ question_id: mcq, text: 'Trains', store_number: 1 })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id
  choiceY = (
    await db()
      .insertInto('question_choices')
      .values({ question_id: mcq, text: 'Buses', store_number: 0 })
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id

  const p = []
  for (let i = 0; i < 10; i++) p.push((await insertUser(db())).id)
  // (A, B) of the people who answered both: (1,1) (1,2) (2,2) (3,5) (3,4) (5,4) (2,1); p6's A is private.
  const answers: [number, number | null | undefined, number | null | undefined][] = [
    [p[0], 1, 1],
    [p[1], 1, 2],
    [p[2], 2, 2],
    [p[3], 3, 5],
    [p[4], 3, 4],
    [p[5], 5, 4],
    [p[6], 4, null], // skipped B: not counted
    [p[7], 2, undefined], // no answer to B
    [p[8], undefined, 1], // no answer to A
    [p[9], 2, 1],
  ]
  for (const [user, a, b] of answers) {
    if (a !== undefined) await rate(user, likertA, a, user === p[5])
    if (b !== undefined) await rate(user, likertB, b)
  }
  await rate(p[0], draft, 3)
  await rate(p[1], draft, 4)
  // Choices: p0 X, p1 Y, p2 X (each with A 1, 1, 2); p3 skipped; p8 Y without an answer to A.
  await pick(p[0], choiceX, 3)
  await pick(p[1], choiceY, 5)
  await pick(p[2], choiceX, 1)
  await pick(p[3], choiceY, null)
  await pick(p[8], choiceY, 2)
})

after(async () => {
  await t?.close()
})

/** The published cells as a dense table (a cell not listed: 0), and the margins the same way. */
function dense(body: any) {
  const counts = body.rows.map(() => body.columns.map(() => 0))
  for (const cell of body.cells) counts[cell.row][cell.column] = cell.count
  const rowTotals = body.rows.map(() => 0)
  for (const margin of body.row_margins) rowTotals[margin.row] = margin.count
  const columnTotals = body.columns.map(() => 0)
  for (const margin of body.column_margins) columnTotals[margin.column] = margin.count
  return { counts, rowTotals, columnTotals }
}

const compare = (a: number | string, b: number | string, token?: string) =>
  t.get(`/api/compare_questions/?questiona=${a}&questionb=${b}`, token ? { authorization: `Token ${token}` } : {})

describe('two likert questions', () => {
  test('the cross-tab, tau-b and Cramér’s V of the people who answered both', async () => {
    const response = await compare(likertA, likertB)
    assert.equal(response.statusCode, 200, response.body)
    const body = response.json()
    assert.deepEqual(body.questiona, { id: likertA, question: body.questiona.question, subtype: 'likert' })
    assert.match(body.questiona.question, /^Question /)
    assert.equal(body.questionb.id, likertB)
    assert.equal(body.respondents, 7)
    assert.deepEqual(body.rows, LEVELS)
    assert.deepEqual(body.columns, LEVELS)
    const table = dense(body)
    assert.deepEqual(table.counts, [
      [1, 1, 0, 0, 0],
      [1, 1, 0, 0, 0],
      [0, 0, 0, 1, 1],
      [0, 0, 0, 0, 0],
      [0, 0, 0, 1, 0],
    ])
    // Only cells and totals with people are listed.
    assert.equal(body.cells.length, 7)
    assert.deepEqual(body.cells[0], { row: 0, column: 0, count: 1 })
    assert.deepEqual(table.rowTotals, [2, 2, 2, 0, 1])
    assert.deepEqual(table.columnTotals, [2, 2, 0, 2, 1])
    assert.equal(body.row_margins.length, 4)
    // Of the 21 pairs: 13 concordant, 2 discordant ((1,2)-(2,1) and (3,5)-(5,4)); 3 pairs tied on A, 3 on B.
    // tau-b = (13 − 2) / √((21 − 3)(21 − 3)) = 11/18.
    // Var(S) = (7·6·19 − 3·(2·1·9) − 3·(2·1·9)) / 18 + (6·6) / (2·7·6) = 115/3 + 3/7 = 814/21.
    const c = body.correlation
    assert.equal(c.method, 'kendall_tau_b')
    assert.equal(c.concordant_pairs, 13)
    assert.equal(c.discordant_pairs, 2)
    assert.ok(Math.abs(c.estimate - 11 / 18) < 1e-15, `${c.estimate}`)
    assert.ok(Math.abs(c.z - 11 / Math.sqrt(814 / 21)) < 1e-14, `${c.z}`)
    // R: cor.test(c(1,1,2,3,3,5,2), c(1,2,2,5,4,4,1), method = "kendall", exact = FALSE)$p.value
    assert.ok(Math.abs(c.p_value - 0.077259861629161944) < 1e-12, `${c.p_value}`)
    assert.equal(c.reason, null)
    // Rows 1, 2, 3, 5 and columns 1, 2, 4, 5 have people: χ² = n (Σ o²/(r·c) − 1) = 7 (4·¼ + ¼ + ½ + ½ − 1) = 8.75,
    // df = 3·3, V = √(8.75 / (7·3)) = √(5/12).
    const v = body.association
    assert.equal(v.method, 'cramers_v')
    assert.ok(Math.abs(v.chi_square - 8.75) < 1e-12)
    assert.equal(v.df, 9)
    assert.ok(Math.abs(v.estimate - Math.sqrt(5 / 12)) < 1e-15)
    assert.equal(v.reason, null)
  })

  test('swapping the questions transposes the table and keeps tau-b', async () => {
    const ab = (await compare(likertA, likertB)).json()
    const ba = (await compare(likertB, likertA)).json()
    const abCounts = dense(ab).counts
    assert.deepEqual(
      dense(ba).counts,
      abCounts[0].map((_: number, j: number) => abCounts.map((row: number[]) => row[j])),
    )
    assert.equal(ba.correlation.estimate, ab.correlation.estimate)
    assert.equal(ba.respondents, 7)
  })

  test('one GROUP BY for the table: two statements for two likert questions', async () => {
    const response = await compare(likertA, likertB)
    assert.equal(response.headers['x-query-count'], '2')
  })

  test('no answers in common: no respondents, cells or totals, no correlation', async () => {
    const body = (await t.json(`/api/compare_questions/?questiona=${likertA}&questionb=${unanswered}`)) as any
    assert.equal('respondents' in body, false)
    assert.deepEqual(body.rows, LEVELS)
    assert.deepEqual([body.cells, body.row_margins, body.column_margins], [[], [], []])
    assert.deepEqual(body.correlation, {
      method: 'kendall_tau_b',
      estimate: null,
      z: null,
      p_value: null,
      concordant_pairs: 0,
      discordant_pairs: 0,
      reason: 'nobody answered both questions',
    })
    assert.deepEqual(body.association, {
      method: 'cramers_v',
      estimate: null,
      chi_square: null,
      df: null,
      reason: 'nobody answered both questions',
    })
  })
})

describe('a multiple-choice question', () => {
  test('rows are its choices in their order; no rank correlation, Cramér’s V instead', async () => {
    const response = await compare(mcq, likertA)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.headers['x-query-count'], '3')
    const body = response.json()
    assert.equal(body.questiona.subtype, 'mcq')
    assert.deepEqual(body.rows, [
      { value: null, choice: choiceY, label: 'Buses' },
      { value: null, choice: choiceX, label: 'Trains' },
    ])
    assert.deepEqual(body.columns, LEVELS)
    // p1 Buses with A 1; p0 and p2 Trains with A 1 and 2. p3's skip and p8 (no A) are not counted.
    assert.equal(body.respondents, 3)
    assert.deepEqual(dense(body).counts, [
      [1, 0, 0, 0, 0],
      [1, 1, 0, 0, 0],
    ])
    assert.equal(body.correlation.estimate, null)
    assert.equal(body.correlation.p_value, null)
    assert.match(body.correlation.reason, /questiona is multiple choice/)
    // r = (1, 2), c = (2, 1): χ² = 3 (½ + ¼ + ½ − 1) = 0.75, df 1, V = √(0.75 / 3) = 0.5.
    assert.ok(Math.abs(body.association.chi_square - 0.75) < 1e-12)
    assert.equal(body.association.df, 1)
    assert.ok(Math.abs(body.association.estimate - 0.5) < 1e-15)
  })

  test('as questionb: the columns are the choices and the reason names questionb', async () => {
    const body = (await t.json(`/api/compare_questions/?questiona=${likertA}&questionb=${mcq}`)) as any
    assert.deepEqual(
      body.columns.map((c: { choice: number }) => c.choice),
      [choiceY, choiceX],
    )
    assert.deepEqual(dense(body).counts, [
      [1, 1],
      [0, 1],
      [0, 0],
      [0, 0],
      [0, 0],
    ])
    assert.match(body.correlation.reason, /questionb is multiple choice/)
  })
})

describe('who may see a question', () => {
  test("someone else's unpublished question answers 404, to anyone and to another person", async () => {
    for (const token of [undefined, otherToken]) {
      for (const [a, b] of [
        [draft, likertA],
        [likertA, draft],
      ]) {
        const response = await compare(a, b, token)
        assert.equal(response.statusCode, 404)
        assert.deepEqual(response.json(), { detail: 'Not found.' })
      }
    }
  })

  test('its author and staff see it', async () => {
    for (const token of [authorToken, staffToken]) {
      const response = await compare(draft, likertA, token)
      assert.equal(response.statusCode, 200, response.body)
      // p0 (3, 1) and p1 (4, 1).
      assert.equal(response.json().respondents, 2)
      assert.equal(response.json().correlation.reason, 'one of the questions has a single level among the people who answered both')
    }
  })

  test('an unknown question answers 404', async () => {
    assert.equal((await compare(likertA, 2147483647)).statusCode, 404)
    assert.equal((await compare(2147483646, likertA)).statusCode, 404)
  })
})

describe('bad input', () => {
  test('missing, malformed or out-of-range ids answer 400 naming the field', async () => {
    const cases: [string, string][] = [
      [`questionb=${likertA}`, 'questiona'],
      [`questiona=${likertA}`, 'questionb'],
      [`questiona=abc&questionb=${likertA}`, 'questiona'],
      [`questiona=${likertA}&questionb=1.5`, 'questionb'],
      [`questiona=-1&questionb=${likertA}`, 'questiona'],
      [`questiona=${likertA}&questionb=2147483648`, 'questionb'],
      [`questiona=${likertA}&questionb=`, 'questionb'],
    ]
    for (const [query, field] of cases) {
      const response = await t.get(`/api/compare_questions/?${query}`)
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`)
      const body = response.json()
      assert.deepEqual(Object.keys(body), [field], `${query}: ${response.body}`)
      assert.ok(Array.isArray(body[field]) && body[field].length > 0)
    }
  })

  test('the same question twice answers 400 on questionb', async () => {
    const response = await compare(likertA, likertA)
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { questionb: ['Choose a question other than questiona.'] })
  })
})
