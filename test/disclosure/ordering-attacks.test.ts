import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'

/**
 * Orderings by a figure, attacked as an observer would send them: with MIN_CELL_SIZE 5 a question's figures leave
 * out its private answers below the fifth, and so must the order of any listing sorted by a figure, or two rows
 * whose published figures tie would come in an order telling which of them holds a private answer.
 */
let t: TestApp
const people: Record<string, { id: number; token: string }> = {}
const NAMES = ['author', 'vera', 'p1', 'p2', 's1', 's2', 's3', 's4', 's5'] as const
let tags: number[] = []

before(async () => {
  t = await createTestApp('empty')
  for (const name of NAMES) {
    const row = await insertUser(t.database.db, { username: `ord_${name}` })
    people[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  tags = [(await insertTag(t.database.db, 'Rivers')).id, (await insertTag(t.database.db, 'Bridges')).id]
})
after(() => t.close())

const send = async (who: string, url: string, body: unknown) => {
  const response = await t.send('POST', url, body, people[who].token)
  assert.ok(response.statusCode < 300, `${url}: ${response.statusCode} ${response.body}`)
  return response.json()
}
const ask = async (body: Record<string, unknown>) =>
  send('author', '/api/questions/', { tags: tags.map((id) => ({ tag: { id } })), ...body })
const rate = (who: string, question: number, value: number, isPrivate = false) =>
  send(who, '/api/question_votes/', { object_id: question, value, private: isPrivate })
const choose = (who: string, choice: number, isPrivate = false) =>
  send(who, '/api/question_choice_votes/', { object_id: choice, value: 5, private: isPrivate })

/** The ids of a listing in its order, keeping only those asked about. */
async function orderOf(url: string, ids: number[]): Promise<number[]> {
  const results = (await t.json(url)).results as { id: number }[]
  return results.map((row) => row.id).filter((id) => ids.includes(id))
}

/** Every listing ordering the rows by each field, both ways. */
async function ordersOf(listings: ((ordering: string) => string)[], fields: string[], ids: number[]) {
  const out: Record<string, number[]> = {}
  for (const listing of listings) {
    for (const field of fields) {
      for (const ordering of [field, `-${field}`]) out[listing(ordering)] = await orderOf(listing(ordering), ids)
    }
  }
  return out
}

const QUESTION_LISTINGS = (ids: number[]) => [
  (ordering: string) => `/api/questions/?id__in=${ids}&ordering=${ordering}`,
  (ordering: string) => `/api/question_stats/?id__in=${ids}&ordering=${ordering}`,
  (ordering: string) => `/api/next_question_light/?id__in=${ids}&limit_count=10&ordering=${ordering}`,
  (ordering: string) => `/api/next_question/?id__in=${ids}&limit_count=10&ordering=${ordering}`,
]
const QUESTION_FIELDS = ['direct_vote_count', 'direct_maximum', 'direct_value', 'liquid_consensus', 'liquid_heat', 'polarisation']

describe('two questions whose public answers tie', () => {
  test('one private answer on either leaves every figure ordering as it was', async () => {
    for (const holder of [0, 1]) {
      const ids: number[] = []
      for (const text of ['Dredge the river?', 'Widen the bridge?']) {
        const id = (await ask({ question: `${text} (${holder})` })).id
        await rate('p1', id, 4)
        await rate('p2', id, 2)
        ids.push(id)
      }
      const listings = QUESTION_LISTINGS(ids)
      const before = await ordersOf(listings, QUESTION_FIELDS, ids)
      assert.deepEqual(before[listings[0]('direct_vote_count')], ids, 'ties fall back to the id')
      assert.deepEqual(before[listings[0]('-direct_vote_count')], [...ids].reverse())
      await rate('vera', ids[holder], 5, true)
      assert.deepEqual(await ordersOf(listings, QUESTION_FIELDS, ids), before, `a private answer on question ${holder} moved an order`)
    }
  })

  test('once a question holds five private answers, the order follows all of them', async () => {
    const ids: number[] = []
    for (const text of ['Close the ford?', 'Light the towpath?']) {
      const id = (await ask({ question: text })).id
      await rate('p1', id, 3)
      ids.push(id)
    }
    // On the first: the id tie-break alone would put it first ascending, last descending.
    for (const who of ['s1', 's2', 's3', 's4']) await rate(who, ids[0], 5, true)
    const listings = QUESTION_LISTINGS(ids)
    for (const listing of listings) assert.deepEqual(await orderOf(listing('-direct_vote_count'), ids), [ids[1], ids[0]])
    await rate('s5', ids[0], 5, true)
    for (const listing of listings) {
      assert.deepEqual(await orderOf(listing('-direct_vote_count'), ids), ids)
      assert.deepEqual(await orderOf(listing('direct_vote_count'), ids), [ids[1], ids[0]])
      assert.deepEqual(await orderOf(listing('-direct_maximum'), ids), ids)
      assert.deepEqual(await orderOf(listing('direct_value'), ids), [ids[1], ids[0]])
      assert.deepEqual(await orderOf(listing('-liquid_consensus'), ids), [ids[1], ids[0]])
    }
    const [shown] = (await t.json(`/api/questions/?id=${ids[0]}`)).results
    assert.equal(shown.direct_vote_count, 6)
  })
})

describe('survey_results_all, most answered first', () => {
  test('one private answer on either of two questions whose public answers tie moves neither', async () => {
    for (const holder of [0, 1]) {
      const ids: number[] = []
      for (const text of ['Stock the pond?', 'Drain the marsh?']) {
        const id = (await ask({ question: `${text} (${holder})` })).id
        await rate('p1', id, 2)
        ids.push(id)
      }
      const listing = (ordering: string) => `/api/survey_results_all/?page_size=100&ordering=${ordering}`
      const before = await ordersOf([listing], ['answer_count'], ids)
      assert.deepEqual(before[listing('-answer_count')], [...ids].reverse())
      await rate('vera', ids[holder], 4, true)
      assert.deepEqual(await ordersOf([listing], ['answer_count'], ids), before, `a private answer on question ${holder} moved an order`)
      assert.deepEqual(await orderOf('/api/survey_results_all/?page_size=100', ids), [...ids].reverse(), 'the default order')
    }
  })
})

describe('two choices whose public picks tie', () => {
  const FIELDS = ['direct_vote_count', 'direct_maximum', 'liquid_vote_count', 'liquid_sum', 'liquid_value']
  test('one private pick on either leaves every figure ordering as it was', async () => {
    for (const holder of [0, 1]) {
      const question = await ask({
        question: `Which bank first? (${holder})`,
        subtype: 'mcq',
        choices: [{ text: 'North' }, { text: 'South' }],
      })
      const ids = (question.choices as { id: number }[]).map((choice) => choice.id).sort((a, b) => a - b)
      await choose('p1', ids[0])
      await choose('p2', ids[1])
      const listing = (ordering: string) => `/api/question_choices/?question=${question.id}&ordering=${ordering}`
      const before = await ordersOf([listing], FIELDS, ids)
      assert.deepEqual(before[listing('direct_vote_count')], ids)
      assert.deepEqual(before[listing('-direct_vote_count')], [...ids].reverse())
      await choose('vera', ids[holder], true)
      assert.deepEqual(await ordersOf([listing], FIELDS, ids), before, `a private pick on choice ${holder} moved an order`)
      // The question's own listing orders alike: its figures come from its choices'.
      const shown = (await t.json(listing('-direct_vote_count'))).results
      assert.deepEqual(
        shown.map((choice: any) => choice.direct_vote_count),
        [1, 1],
      )
    }
  })

  test('five private picks count, and the order follows them', async () => {
    const question = await ask({ question: 'Which lock to mend?', subtype: 'mcq', choices: [{ text: 'Upper' }, { text: 'Lower' }] })
    const ids = (question.choices as { id: number }[]).map((choice) => choice.id).sort((a, b) => a - b)
    await choose('p1', ids[1])
    for (const who of ['s1', 's2', 's3', 's4', 's5']) await choose(who, ids[0], true)
    const listing = (ordering: string) => `/api/question_choices/?question=${question.id}&ordering=${ordering}`
    assert.deepEqual(await orderOf(listing('-direct_vote_count'), ids), ids)
    assert.deepEqual(await orderOf(listing('liquid_vote_count'), ids), [ids[1], ids[0]])
  })
})

describe('two question-tags whose public tag votes tie', () => {
  test('one private tag vote on either leaves the ordering as it was', async () => {
    for (const holder of [0, 1]) {
      const question = await ask({ question: `Name the weir? (${holder})` })
      const detail = await t.json(`/api/questions/${question.id}/`)
      const ids = (detail.tags as { id: number }[]).map((tag) => tag.id).sort((a, b) => a - b)
      for (const id of ids) await send('p1', '/api/question_tag_votes/', { object_id: id, value: 3 })
      const listing = (ordering: string) => `/api/question_tags/?question=${question.id}&ordering=${ordering}`
      const fields = ['direct_vote_count', 'direct_maximum', 'direct_value', 'direct_consensus']
      const before = await ordersOf([listing], fields, ids)
      assert.deepEqual(before[listing('-direct_vote_count')], [...ids].reverse())
      await send('vera', '/api/question_tag_votes/', { object_id: ids[holder], value: 5, private: true })
      assert.deepEqual(await ordersOf([listing], fields, ids), before, `a private tag vote on tag ${holder} moved an order`)
    }
  })
})
