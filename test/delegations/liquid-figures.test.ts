import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { rebuildQuestionLiquid } from '../../src/engines/liquid/liquid.rebuild.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { delegationWorld, type Person } from './support.ts'

/** Delegation writes move the liquid figures of the questions they reach, in the same request. */

let t: TestApp
let w: ReturnType<typeof delegationWorld>
let author: Person

before(async () => {
  // Arithmetic on tiny questions: every private answer counts in the figures (docs/statistics.md).
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1' })
  w = delegationWorld(t)
  author = await w.person()
})
after(() => t.close())

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum'] as const

/** The question's level counts as the API shows them, and a check that they equal a full resolution. */
async function figures(questionId: number) {
  const question = await t.json(`/api/questions/${questionId}/`)
  const differences = await rebuildQuestionLiquid(t.database.db, questionId, false)
  assert.deepEqual(differences, [], 'the stored liquid figures equal a full resolution of the question')
  const family = (prefix: 'direct' | 'liquid') => [...LEVELS.map((level) => question[`${prefix}_${level}`]), question[`${prefix}_skipped`]]
  return {
    direct: family('direct'),
    liquid: family('liquid'),
    liquidCount: question.liquid_vote_count,
    directCount: question.direct_vote_count,
  }
}

describe('liquid figures follow delegation writes', () => {
  test('B answers 4, A delegates to B on the topic: liquid_high 2, direct_high 1; A revokes: back to 1', async () => {
    const [a, b] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.answer(b, question, 4)
    const delegation = await w.onTag(a, topic, b)
    let q = await t.json(`/api/questions/${question}/`)
    assert.equal(q.liquid_high, 2)
    assert.equal(q.direct_high, 1)
    assert.equal(q.liquid_vote_count, 2)
    assert.equal(q.direct_vote_count, 1)
    await figures(question)
    assert.equal((await t.send('DELETE', `/api/tag_delegations/${delegation.id}/`, undefined, a.token)).statusCode, 204)
    q = await t.json(`/api/questions/${question}/`)
    assert.equal(q.liquid_high, 1)
    assert.equal(q.direct_high, 1)
    assert.equal(q.liquid_vote_count, 1)
    await figures(question)
  })

  test('a tag delegation moves every question carrying the tag', async () => {
    const [a, b] = [await w.person(), await w.person()]
    const [tag, other] = [await w.tag(), await w.tag()]
    const first = await w.question(author.id, [tag])
    const second = await w.question(author.id, [other, tag])
    const untouched = await w.question(author.id, [other])
    for (const question of [first, second, untouched]) await w.answer(b, question, 1)
    await w.onTag(a, tag, b)
    assert.deepEqual((await figures(first)).liquid, [2, 0, 0, 0, 0, 0])
    assert.deepEqual((await figures(second)).liquid, [2, 0, 0, 0, 0, 0])
    assert.deepEqual((await figures(untouched)).liquid, [1, 0, 0, 0, 0, 0])
  })

  test('a delegation made before the trustee answers counts once they answer', async () => {
    const [c, d] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.onQuestion(c, question, d)
    assert.equal((await figures(question)).liquidCount, 0)
    await w.answer(d, question, 5)
    const after = await figures(question)
    assert.deepEqual(after.liquid, [0, 0, 0, 0, 2, 0])
    assert.deepEqual(after.direct, [0, 0, 0, 0, 1, 0])
  })

  test('reorder, new trustees, blocks, private answers and chains move the weight where the rules say', async () => {
    const [a, b, p, q, r] = [await w.person(), await w.person(), await w.person(), await w.person(), await w.person()]
    const [topic, second, third] = [await w.tag(), await w.tag(), await w.tag()]
    const question = await w.question(author.id, [topic, second, third])
    await w.answer(p, question, 2) // low
    await w.answer(q, question, 5) // maximum
    await w.answer(r, question, 3, true) // medium, private: it carries no one
    const expect = async (liquid: number[], what: string) => assert.deepEqual((await figures(question)).liquid, [...liquid, 0], what)
    await expect([0, 1, 1, 0, 1], 'answers only')

    const onSecond = await w.onTag(a, second, p, 0)
    await expect([0, 2, 1, 0, 1], 'a -> p on the second tag')
    const onThird = await w.onTag(a, third, q, 1)
    await expect([0, 2, 1, 0, 1], 'a second tag delegation with a worse priority changes nothing')

    const reorder = await t.send('POST', '/api/tag_delegations/reorder/', { order: [onThird.id, onSecond.id] }, a.token)
    assert.equal(reorder.statusCode, 200, reorder.body)
    await expect([0, 1, 1, 0, 2], 'reordered: the third tag wins, a -> q')

    const toPrivate = await t.send('PATCH', `/api/tag_delegations/${onThird.id}/`, { trustee: r.id }, a.token)
    assert.equal(toPrivate.statusCode, 200, toPrivate.body)
    await expect([0, 1, 1, 0, 1], 'a -> r, whose answer is private: a counts nowhere')

    const onQuestion = await w.onQuestion(a, question, p)
    await expect([0, 2, 1, 0, 1], 'a question delegation beats the tags: a -> p')

    await w.onTag(b, topic, a)
    await expect([0, 3, 1, 0, 1], 'b -> a -> p: b follows a’s winning delegation for this question')

    const block = await t.send('PATCH', `/api/question_delegation/${onQuestion.id}/`, { trustee: null }, a.token)
    assert.equal(block.statusCode, 200, block.body)
    await expect([0, 1, 1, 0, 1], 'a blocks the question: a and b count nowhere')

    assert.equal((await t.send('DELETE', `/api/question_delegation/${block.json().id}/`, undefined, a.token)).statusCode, 204)
    await expect([0, 1, 1, 0, 1], 'without the block, a’s tag winner leads to a private answer')

    await w.onTag(a, topic, q)
    await expect([0, 1, 1, 0, 3], 'a -> q on the topic, with b behind a')

    await w.onTag(q, topic, a)
    await expect([0, 1, 1, 0, 3], 'q answered: q’s own delegation does not matter')

    await w.answer(a, question, 1)
    await expect([2, 1, 1, 0, 1], 'a answers: a and b count on a’s answer')
  })

  test('many delegations at once, and one person’s writes at once, end exact', async () => {
    const b = await w.person()
    const topic = await w.tag()
    const [first, second] = [await w.question(author.id, [topic]), await w.question(author.id, [topic])]
    await w.answer(b, first, 4)
    await w.answer(b, second, 2)
    const givers = await Promise.all(Array.from({ length: 10 }, () => w.person()))
    const responses = await Promise.all(
      givers.map((giver) => t.send('POST', '/api/tag_delegations/', { tag: topic, trustee: b.id }, giver.token)),
    )
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      givers.map(() => 201),
    )
    assert.deepEqual((await figures(first)).liquid, [0, 0, 0, 11, 0, 0])
    assert.deepEqual((await figures(second)).liquid, [0, 11, 0, 0, 0, 0])
    // One person sends five delegations on the same tag at once: one stays active, the rest are history.
    const [one, c] = [givers[0], await w.person()]
    const same = await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.send('POST', '/api/tag_delegations/', { tag: topic, trustee: i % 2 ? c.id : null }, one.token)),
    )
    assert.deepEqual(
      same.map((response) => response.statusCode),
      [201, 201, 201, 201, 201],
    )
    const active = (await t.json(`/api/tag_delegations/?tag=${topic}`, { authorization: `Token ${one.token}` })).results
    assert.equal(active.length, 1)
    assert.equal((await t.json(`/api/tag_delegations/?tag=${topic}&history=1`, { authorization: `Token ${one.token}` })).count, 6)
    assert.equal((await figures(first)).liquid[3], 10)
  })

  test('refused writes move nothing', async () => {
    const [a, b] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.answer(b, question, 3)
    const before = await figures(question)
    assert.equal((await t.send('POST', '/api/tag_delegations/', { tag: topic, trustee: a.id }, a.token)).statusCode, 400)
    assert.equal((await t.send('POST', '/api/question_delegation/', { question, trustee: 999999 }, a.token)).statusCode, 400)
    const delegation = await w.onTag(a, topic, b)
    assert.equal(
      (await t.send('POST', '/api/tag_delegations/reorder/', { order: [delegation.id, delegation.id] }, a.token)).statusCode,
      400,
    )
    assert.equal((await t.send('DELETE', `/api/tag_delegations/${delegation.id}/`, undefined, a.token)).statusCode, 204)
    assert.equal((await t.send('DELETE', `/api/tag_delegations/${delegation.id}/`, undefined, a.token)).statusCode, 400)
    assert.deepEqual(await figures(question), before)
  })
})
