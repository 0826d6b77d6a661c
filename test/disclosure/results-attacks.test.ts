import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'

/**
 * survey_results (JSON and CSV) and collection_stats as an attacker reads them, anonymous, at the default cell
 * size (5), knowing every public answer: a small cell, a question with one private answer, and a collection's
 * figures around one private answer. Where V's private answer is the attack's target, the answers before and after
 * it are compared whole: nothing an observer can watch moves with it.
 */
const K = 5
let t: TestApp
const db = () => t.database.db
let author: number
let v: number
const crowd: number[] = []

async function rate(user: number, question: number, value: number, isPrivate = false) {
  await db()
    .insertInto('question_votes')
    .values({ user_id: user, question_id: question, value, skipped: false, private: isPrivate })
    .execute()
}

async function collectionOf(questions: number[]) {
  const { id } = await db()
    .insertInto('question_collections')
    .values({ user_id: author, name: 'Attack' })
    .returning('id')
    .executeTakeFirstOrThrow()
  for (const [order, question] of questions.entries())
    await db().insertInto('question_collection_items').values({ parent_id: id, type: 'Q', question_id: question, order }).execute()
  // Kept by the item routes; set here as they would.
  await db()
    .updateTable('question_collections')
    .set({ question_count: questions.length, item_count: questions.length })
    .where('id', '=', id)
    .execute()
  return id
}

const results = async (collection: number) => {
  const json = await t.get(`/api/survey_results/?collection=${collection}`)
  const csv = await t.get(`/api/survey_results/?collection=${collection}&format=csv`)
  assert.equal(json.statusCode, 200, json.body)
  assert.equal(csv.statusCode, 200, csv.body)
  return { json: json.json(), csv: csv.body }
}

before(async () => {
  t = await createTestApp('empty')
  author = (await insertUser(db())).id
  v = (await insertUser(db())).id
  for (let i = 0; i < 12; i++) crowd.push((await insertUser(db())).id)
})

after(async () => {
  await t?.close()
})

test('a small cell of survey results: left out of the JSON and blank in the CSV, and not the total less the rest', async () => {
  const question = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  // Six 1s, five 2s and one 5, all public.
  for (const [i, user] of crowd.entries()) await rate(user, question, i < 6 ? 1 : i < 11 ? 2 : 5)
  const { json, csv } = await results(await collectionOf([question]))
  const [result] = json.results
  assert.equal(result.sample_size, 12)
  // The 5 (one rating) is left out, and the 2s with it: the total less the 1s is 6, not 1.
  assert.deepEqual(Object.keys(result.direct.shares), ['1'])
  assert.deepEqual(Object.keys(result.weighted.shares), ['1'])
  const published = Object.values(result.direct.shares).reduce((s: number, share: any) => s + share.count, 0)
  const rest = result.sample_size - published
  assert.ok(rest === 0 || rest >= K, `${rest}`)
  // The CSV agrees: level 1 published, the others blank and suppressed.
  const rows = csv
    .trim()
    .split('\r\n')
    .slice(1)
    .map((line: string) => line.split(','))
  assert.deepEqual(
    rows.map((row: string[]) => [row[3], row[6], row.at(-1)]),
    [
      ['1', '6', 'false'],
      ['2', '', 'true'],
      ['3', '', 'true'],
      ['4', '', 'true'],
      ['5', '', 'true'],
    ],
  )
})

test('survey results of a question with one private answer: the same before and after it, JSON and CSV', async () => {
  const question = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  const choiceQuestion = (await insertQuestion(db(), author, { subtype: 'mcq' })).id
  const choices: number[] = []
  for (const [i, text] of ['Yes', 'No', 'Unsure'].entries())
    choices.push(
      (
        await db()
          .insertInto('question_choices')
          .values({ question_id: choiceQuestion, text, store_number: i })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    )
  // Ten public ratings 1..4 (never 5) and ten public picks of Yes or No (never Unsure).
  for (const [i, user] of crowd.slice(0, 10).entries()) {
    await rate(user, question, 1 + (i % 4))
    await db()
      .insertInto('question_choice_votes')
      .values({ user_id: user, question_id: choiceQuestion, choice_id: choices[i % 2], value: 5, skipped: false })
      .execute()
  }
  const collection = await collectionOf([question, choiceQuestion])
  const before = await results(collection)
  // V rates 5 and picks Unsure, privately: the only 5 and the only Unsure.
  await rate(v, question, 5, true)
  await db()
    .insertInto('question_choice_votes')
    .values({ user_id: v, question_id: choiceQuestion, choice_id: choices[2], value: 5, skipped: false, private: true })
    .execute()
  const afterwards = await results(collection)
  assert.deepEqual(afterwards, before)
  const [likert, mcq] = afterwards.json.results
  assert.equal(likert.sample_size, 10)
  assert.equal('5' in likert.direct.shares, false)
  assert.equal(likert.direct.average_vote, 2.3)
  assert.equal(mcq.sample_size, 10)
  assert.deepEqual(
    mcq.choices.map((c: { text: string; count: number }) => [c.text, c.count]),
    [
      ['Yes', 5],
      ['No', 5],
    ],
  )
})

test('collection figures around one private answer: unchanged by it, and left out on a small collection', async () => {
  const question = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  const second = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  for (const user of crowd.slice(0, 6)) await rate(user, question, 3)
  const large = await collectionOf([question, second])
  const stats = async (id: number) => {
    const response = await t.get(`/api/collection_stats/${id}/`)
    assert.equal(response.statusCode, 200, response.body)
    return response.json()
  }
  const listed = async (id: number) => (await t.json(`/api/collection_stats/?collection=${id}`)).results[0]
  const before = [await stats(large), await listed(large)]
  assert.equal(before[0].answerers, 6)
  // V answers the second question, privately: V would be the only answerer of it and the only one with two answers.
  await rate(v, second, 4, true)
  await rate(v, question, 2, true)
  assert.deepEqual([await stats(large), await listed(large)], before)
  // Two public answerers and V's private answer: too few; only the counts of questions and items are shown.
  const lonely = (await insertQuestion(db(), author, { subtype: 'likert' })).id
  for (const user of crowd.slice(0, 2)) await rate(user, lonely, 1)
  await rate(v, lonely, 5, true)
  const small = await stats(await collectionOf([lonely]))
  assert.deepEqual(
    [small.answerers, small.answers, small.complete_count, small.completion, small.question_count],
    [undefined, undefined, undefined, undefined, 1],
  )
})
