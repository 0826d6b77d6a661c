import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'

/**
 * compare_questions as an attacker sends it, anonymous, at the default cell size (5), knowing every public answer:
 * a cross-tab of one person (likert and multiple choice), and the complement of a table (its totals less its
 * published cells). Each asserts V's private answer cannot be read; where meaningful, that public figures still can.
 */
const K = 5
let t: TestApp
const db = () => t.database.db
let author: number
let v: number
let onlyV: number
let popular: number
let other: number
let choiceQuestion: number
const choiceIds: number[] = []
const crowd: number[] = []

async function rate(user: number, question: number, value: number, isPrivate = false) {
  await db()
    .insertInto('question_votes')
    .values({ user_id: user, question_id: question, value, skipped: false, private: isPrivate })
    .execute()
}

async function pick(user: number, choice: number, isPrivate = false) {
  await db()
    .insertInto('question_choice_votes')
    .values({ user_id: user, question_id: choiceQuestion, choice_id: choice, value: 5, skipped: false, private: isPrivate })
    .execute()
}

before(async () => {
  t = await createTestApp('empty')
  author = (await insertUser(db())).id
  v = (await insertUser(db())).id
  onlyV = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  popular = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  other = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  choiceQuestion = (await insertQuestion(db(), author, { subtype: 'mcq' })).id
  for (const [i, text] of ['Yes', 'No', 'Unsure'].entries())
    choiceIds.push(
      (
        await db()
          .insertInto('question_choices')
          .values({ question_id: choiceQuestion, text, store_number: i })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    )
  // Twelve people answer `popular` and `other` publicly, all 1..4 (never 5), and pick Yes or No (never Unsure).
  for (let i = 0; i < 12; i++) {
    const user = (await insertUser(db())).id
    crowd.push(user)
    await rate(user, popular, 1 + (i % 4))
    await rate(user, other, 1 + ((i + 1) % 4))
    await pick(user, choiceIds[i % 2])
  }
  // V alone answers onlyV, publicly.
  await rate(v, onlyV, 3)
})

after(async () => {
  await t?.close()
})

const compare = async (a: number, b: number) => {
  const response = await t.get(`/api/compare_questions/?questiona=${a}&questionb=${b}`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

/** What the attacker can read of V's answers: everything about the table, as published. */
const nothingOfTheTable = (body: any) => {
  assert.equal('respondents' in body, false, JSON.stringify(body))
  assert.deepEqual([body.cells, body.row_margins, body.column_margins], [[], [], []])
  assert.equal(body.correlation.estimate, null)
  assert.equal(body.association.estimate, null)
  assert.equal(body.association.chi_square, null)
}

test('a cross-tab of one person (likert): V’s private rating of a popular question is not in the table', async () => {
  const before = [await compare(onlyV, popular), await compare(popular, onlyV)]
  await rate(v, popular, 5, true)
  const after = [await compare(onlyV, popular), await compare(popular, onlyV)]
  for (const body of after) nothingOfTheTable(body)
  // The answer does not change with V's private rating: nothing moves that an observer could watch.
  assert.deepEqual(after, before)
  // Public answers still give a table and its figures: popular against other, twelve people (three a level, so
  // each row and column is under 5 and left out, and so is each cell).
  const open = await compare(popular, other)
  assert.equal(open.respondents, 12)
  assert.notEqual(open.correlation.estimate, null)
  assert.deepEqual([open.cells, open.row_margins], [[], []])
})

test('a cross-tab of one person (multiple choice): V’s private choice is not in the table', async () => {
  const before = [await compare(onlyV, choiceQuestion), await compare(choiceQuestion, onlyV)]
  await pick(v, choiceIds[2], true)
  const after = [await compare(onlyV, choiceQuestion), await compare(choiceQuestion, onlyV)]
  for (const body of after) nothingOfTheTable(body)
  assert.deepEqual(after, before)
  // Nor does the popular side show Unsure, which only V picked (privately).
  const body = await compare(choiceQuestion, popular)
  assert.equal(body.respondents, 12)
  const unsure = body.rows.findIndex((row: { choice: number }) => row.choice === choiceIds[2])
  assert.ok(!body.cells.some((cell: { row: number }) => cell.row === unsure))
  assert.ok(!body.row_margins.some((margin: { row: number }) => margin.row === unsure))
})

test('the complement of a table: no total less its published cells leaves 1..4 people or 1..4 private pairs', async () => {
  // Two new questions: 13 public pairs with one lone pair (1, 5), and private pairs (two whole batches of 5, so the
  // table counts them all) of which V's (2, 4) is alone in its cell, row and column among private pairs.
  const a = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  const b = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  const pairs: [number, number, boolean][] = [
    ...Array.from({ length: 6 }, (): [number, number, boolean] => [1, 1, false]),
    [1, 5, false],
    ...Array.from({ length: 6 }, (): [number, number, boolean] => [3, 3, false]),
    ...Array.from({ length: 9 }, (): [number, number, boolean] => [3, 3, true]),
    [2, 4, true],
  ]
  const publicPairs: [number, number][] = []
  for (const [x, y, isPrivate] of pairs) {
    const user = (await insertUser(db())).id
    // The private answer is to b: the attacker sees each person's public answer to a.
    await rate(user, a, x)
    await rate(user, b, y, isPrivate)
    if (!isPrivate) publicPairs.push([x, y])
  }
  const body = await compare(a, b)
  assert.equal(body.respondents, pairs.length)
  const publicIn = (row: number | null, column: number | null) =>
    publicPairs.filter(([x, y]) => (row === null || x === row + 1) && (column === null || y === column + 1)).length
  const risky = (amount: number) => amount > 0 && amount < K
  const cellAt = (i: number, j: number) => body.cells.find((c: any) => c.row === i && c.column === j)
  // Every published figure less the public pairs it covers: 0 or at least 5 private pairs.
  for (const cell of body.cells) assert.ok(!risky(cell.count - publicIn(cell.row, cell.column)), JSON.stringify(cell))
  // Every published total less its published cells: 0 or at least 5 pairs, and 0 or at least 5 private ones.
  const lines = [
    { total: body.respondents, cells: body.cells, publicTotal: publicPairs.length },
    ...body.row_margins.map((m: any) => ({
      total: m.count,
      cells: body.cells.filter((c: any) => c.row === m.row),
      publicTotal: publicIn(m.row, null),
    })),
    ...body.column_margins.map((m: any) => ({
      total: m.count,
      cells: body.cells.filter((c: any) => c.column === m.column),
      publicTotal: publicIn(null, m.column),
    })),
  ]
  for (const line of lines) {
    const shown = line.cells.reduce((s: number, c: any) => s + c.count, 0)
    const publicShown = line.cells.reduce((s: number, c: any) => s + Math.min(c.count, publicIn(c.row, c.column)), 0)
    assert.ok(!risky(line.total - shown), `total ${line.total}, cells ${shown}`)
    assert.ok(!risky(line.total - shown - (line.publicTotal - publicShown)), `private pairs in the complement of ${line.total}`)
  }
  // V's cell (2, 4) and the lone public pair (1, 5) are not published, nor given away by their row or column.
  assert.equal(cellAt(1, 3), undefined)
  assert.equal(cellAt(0, 4), undefined)
  // The large public cells still are.
  assert.ok(cellAt(2, 2)?.count >= 6)
})
