import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { statisticsColumns } from '../../src/engines/statistics/statistics-fields.ts'
import { collection, hoursFromNow, mcq } from './support.ts'

/** A collection walked as the web app walks it: next question, answer it, next, until nothing remains. */
let t: TestApp
const ids: Record<string, number> = {}
const choices: Record<string, number[]> = {}
const tokens: Record<string, string> = {}
let walkOrder: number[] = []
let parent = 0

before(async () => {
  t = await createTestApp('empty')
  const db = t.database.db
  const author = await insertUser(db)
  for (const name of ['walker', 'skipper', 'staff']) {
    const user = await insertUser(db, { is_staff: name === 'staff' })
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  tokens.author = await t.tokenFor(author.id)
  ids.likertA = (await insertQuestion(db, author.id, { question: 'Likert A' })).id
  const choiceB = await mcq(db, author.id, { question: 'Choice B' })
  ids.choiceB = choiceB.id
  choices.choiceB = choiceB.choiceIds
  ids.likertC = (await insertQuestion(db, author.id, { question: 'Likert C', start_at: hoursFromNow(-2), end_at: hoursFromNow(2) })).id
  const choiceD = await mcq(db, author.id, { question: 'Choice D' })
  ids.choiceD = choiceD.id
  choices.choiceD = choiceD.choiceIds
  ids.likertE = (await insertQuestion(db, author.id, { question: 'Likert E' })).id
  // In the collection but never served: a draft, a closed window, a window not yet open.
  ids.draft = (await insertQuestion(db, author.id, { question: 'Draft', publish: false })).id
  ids.closed = (await insertQuestion(db, author.id, { question: 'Closed', start_at: hoursFromNow(-48), end_at: hoursFromNow(-1) })).id
  ids.future = (await insertQuestion(db, author.id, { question: 'Future', start_at: hoursFromNow(1) })).id
  // Item order differs from id order; the draft, closed and future questions sit between served ones.
  walkOrder = [ids.likertE, ids.choiceB, ids.likertA, ids.choiceD, ids.likertC]
  const items = [
    { questionId: ids.likertE, order: 1 },
    { questionId: ids.draft, order: 2 },
    { questionId: ids.choiceB, order: 3 },
    { questionId: ids.closed, order: 4 },
    { questionId: ids.likertA, order: 5 },
    { questionId: ids.future, order: 6 },
    { questionId: ids.choiceD, order: 7 },
    { questionId: ids.likertC, order: 7 },
  ]
  parent = await collection(db, author.id, items)
})
after(() => t.close())

const as = (who: string) => ({ authorization: `Token ${tokens[who]}` })

async function answer(questionId: number, who: string, skip: boolean) {
  const isChoice = questionId === ids.choiceB ? choices.choiceB : questionId === ids.choiceD ? choices.choiceD : null
  const response = isChoice
    ? await t.send('POST', '/api/question_choice_votes/', { object_id: isChoice[1], value: skip ? null : 5 }, tokens[who])
    : await t.send('POST', '/api/question_votes/', { object_id: questionId, value: skip ? null : 4 }, tokens[who])
  assert.equal(response.statusCode, 201, response.body)
}

describe('walking a collection in its order', () => {
  for (const [who, skip] of [
    ['walker', false],
    ['skipper', true],
  ] as const) {
    test(`${who}: one question at a time in item order, ${skip ? 'skipping' : 'answering'} each, until nothing remains`, async () => {
      for (let step = 0; step < walkOrder.length; step++) {
        const body = await t.json(`/api/next_question/?in_collections__parent=${parent}&order=1`, as(who))
        assert.equal(body.count, walkOrder.length)
        assert.equal(body.unanswered, walkOrder.length - step)
        assert.equal(body.returning, 1)
        assert.deepEqual(
          body.results.map((q: any) => q.id),
          [walkOrder[step]],
          `step ${step}`,
        )
        assert.deepEqual(body.results[0].my_vote, [])
        await answer(walkOrder[step], who, skip)
      }
      const done = await t.json(`/api/next_question/?in_collections__parent=${parent}&order=1`, as(who))
      assert.deepEqual(done, { returning: 0, results: [], count: walkOrder.length, unanswered: 0 })
      const light = await t.json(`/api/next_question_light/?in_collections__parent=${parent}&order=true&limit_count=30`, as(who))
      assert.deepEqual(light, { returning: 0, results: [], count: walkOrder.length, unanswered: 0 })
    })
  }

  test('the whole remaining walk in one answer with limit_count, in item order; order=true works as order=1', async () => {
    const body = await t.json(`/api/next_question_light/?in_collections__parent=${parent}&order=true&limit_count=30`)
    assert.deepEqual(
      body.results.map((q: any) => q.id),
      walkOrder,
    )
    assert.equal(body.returning, walkOrder.length)
  })

  test('without order the collection is served by question id', async () => {
    const body = await t.json(`/api/next_question_light/?in_collections__parent=${parent}&limit_count=30`)
    assert.deepEqual(
      body.results.map((q: any) => q.id),
      [...walkOrder].sort((a, b) => a - b),
    )
  })

  test('drafts, closed and not yet open questions are never served nor counted, even to their author or staff', async () => {
    for (const who of ['author', 'staff']) {
      const body = await t.json(`/api/next_question_light/?in_collections__parent=${parent}&limit_count=30`, as(who))
      const served = body.results.map((q: any) => q.id)
      for (const hidden of [ids.draft, ids.closed, ids.future]) assert.ok(!served.includes(hidden), `${who} is not served ${hidden}`)
      assert.equal(body.count, walkOrder.length)
    }
  })

  test('the light form: text, subtype, my_vote, choices as embedded in a question, the liquid family and polarisation', async () => {
    const body = await t.json(`/api/next_question_light/?in_collections__parent=${parent}&limit_count=30`)
    const question = body.results.find((q: any) => q.id === ids.choiceB)
    const expected = [
      'id',
      'question',
      'description',
      'slug',
      'subtype',
      'my_vote',
      'choices',
      ...statisticsColumns('liquid'),
      'polarisation',
    ]
    assert.deepEqual(Object.keys(question).sort(), expected.sort())
    assert.equal(question.subtype, 'mcq')
    assert.equal(question.question, 'Choice B')
    assert.deepEqual(
      question.choices.map((c: any) => c.id),
      choices.choiceB,
    )
    assert.equal(question.choices[0].url, `http://localhost:80/api/question_choices/${choices.choiceB[0]}/`)
    assert.equal(question.choices[2].store_number, 2)
    assert.equal(typeof question.choices[0].liquid_vote_count, 'number')
    assert.equal(typeof question.choices[0].direct_vote_count, 'number')
  })
})
