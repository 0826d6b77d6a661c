import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { delegationWorld, type Person } from './support.ts'

let t: TestApp
let w: ReturnType<typeof delegationWorld>
let author: Person

before(async () => {
  t = await createTestApp('tiny')
  w = delegationWorld(t)
  author = await w.person()
})
after(() => t.close())

const ids = (users: { id: number }[]) => users.map((user) => user.id)

/** The representation, checked for its shape and against the database's own resolution functions. */
async function representation(who: Person, questionId: number) {
  const body = await w.representation(who, questionId)
  assert.deepEqual(Object.keys(body).sort(), ['chain', 'delegation', 'outcome', 'question', 'representative', 'representative_answer'])
  assert.equal(body.question, questionId)
  for (const user of [...body.chain, ...(body.representative ? [body.representative] : [])]) {
    assert.ok(Number.isInteger(user.id) && typeof user.username === 'string' && typeof user.url === 'string', 'a reduced user')
    assert.ok(!('email' in user) && !('follow' in user))
  }
  if (body.outcome !== 'own_answer') {
    assert.equal(body.delegation?.trustee ?? null, await w.liquidParent(who, questionId), 'the winner is the one liquid_parent picks')
    const carried = body.outcome === 'represented' ? body.representative.id : null
    assert.equal(await w.liquidRepresentative(who, questionId), carried, 'the representative liquid_representative finds')
  }
  return body
}

describe('the seven outcomes', () => {
  test('no_delegation: nothing applies to the question', async () => {
    const [alice, bob] = [await w.person(), await w.person()]
    const [topic, other] = [await w.tag(), await w.tag()]
    const question = await w.question(author.id, [topic])
    await w.onTag(alice, other, bob) // a tag the question does not carry
    const body = await representation(alice, question)
    assert.deepEqual(body, {
      question,
      outcome: 'no_delegation',
      delegation: null,
      chain: [],
      representative: null,
      representative_answer: null,
    })
  })

  test('own_answer: the caller answered (the delegation that would apply is still shown)', async () => {
    const [alice, bob] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    const delegation = await w.onTag(alice, topic, bob)
    await w.answer(bob, question, 2)
    await w.answer(alice, question, 5, true)
    const body = await representation(alice, question)
    assert.equal(body.outcome, 'own_answer')
    assert.deepEqual(body.delegation, { kind: 'tag', id: delegation.id, tag: topic, trustee: bob.id })
    assert.deepEqual(body.chain, [])
    assert.equal(body.representative, null)
    assert.equal(body.representative_answer, null)
  })

  test('represented: the chain reaches a public answer, which is shown', async () => {
    const [alice, bob] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    const delegation = await w.onTag(alice, topic, bob)
    const vote = await w.answer(bob, question, 4)
    const body = await representation(alice, question)
    assert.equal(body.outcome, 'represented')
    assert.deepEqual(body.delegation, { kind: 'tag', id: delegation.id, tag: topic, trustee: bob.id })
    assert.deepEqual(ids(body.chain), [bob.id])
    assert.equal(body.representative.id, bob.id)
    assert.deepEqual(body.representative_answer, { value: 4, object_id: question, skipped: false, modified_at: vote.modified_at })
    assert.match(body.representative_answer.modified_at, TIMESTAMP)
  })

  test('private_answer: the chain reaches a private answer, which is not shown', async () => {
    const [alice, bob] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.onTag(alice, topic, bob)
    await w.answer(bob, question, 1, true)
    // While the question's figures withhold its private answers (fewer than MIN_CELL_SIZE), the chain walks past
    // bob's, as the liquid figures count it: bob delegates nowhere, a dead end.
    assert.equal((await representation(alice, question)).outcome, 'dead_end')
    for (let i = 0; i < 4; i++) await w.answer(await w.person(), question, 2, true)
    const body = await representation(alice, question)
    assert.equal(body.outcome, 'private_answer')
    assert.deepEqual(ids(body.chain), [bob.id])
    assert.equal(body.representative.id, bob.id)
    assert.equal(body.representative_answer, null)
  })

  test('loop: the chain comes back on itself', async () => {
    const [alice, bob, carol] = [await w.person(), await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.onTag(alice, topic, bob)
    await w.onTag(bob, topic, alice)
    const back = await representation(alice, question)
    assert.equal(back.outcome, 'loop')
    assert.deepEqual(ids(back.chain), [bob.id, alice.id])
    assert.equal(back.representative, null)
    // A loop further up the chain: alice -> bob -> carol -> bob.
    await w.onTag(bob, topic, carol)
    await w.onQuestion(carol, question, bob)
    const further = await representation(alice, question)
    assert.equal(further.outcome, 'loop')
    assert.deepEqual(ids(further.chain), [bob.id, carol.id, bob.id])
    // An answer anywhere on the loop breaks it.
    await w.answer(carol, question, 3)
    const broken = await representation(alice, question)
    assert.equal(broken.outcome, 'represented')
    assert.deepEqual(ids(broken.chain), [bob.id, carol.id])
  })

  test('blocked: the caller’s own block, or one on the chain', async () => {
    const [alice, bob, carol] = [await w.person(), await w.person(), await w.person()]
    const [topic, other] = [await w.tag(), await w.tag()]
    const question = await w.question(author.id, [topic, other])
    await w.onTag(alice, other, carol)
    const block = await w.onTag(alice, topic, null) // the topic's block beats the other tag
    const own = await representation(alice, question)
    assert.equal(own.outcome, 'blocked')
    assert.deepEqual(own.delegation, { kind: 'tag', id: block.id, tag: topic, trustee: null })
    assert.deepEqual(own.chain, [])
    const dave = await w.person()
    await w.onQuestion(dave, question, bob)
    await w.onQuestion(bob, question, null)
    const onChain = await representation(dave, question)
    assert.equal(onChain.outcome, 'blocked')
    assert.equal(onChain.delegation.kind, 'question')
    assert.deepEqual(ids(onChain.chain), [bob.id])
    assert.equal(onChain.representative, null)
  })

  test('dead_end: someone on the chain neither answered nor delegates, or their account is inactive', async () => {
    const [alice, bob, carol] = [await w.person(), await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    await w.onTag(alice, topic, bob)
    const body = await representation(alice, question)
    assert.equal(body.outcome, 'dead_end')
    assert.deepEqual(ids(body.chain), [bob.id])
    assert.equal(body.representative, null)
    // bob delegates on to carol, who answers publicly; then carol's account is deactivated.
    await w.onTag(bob, topic, carol)
    await w.answer(carol, question, 5)
    assert.equal((await representation(alice, question)).outcome, 'represented')
    await t.database.db.updateTable('users').set({ is_active: false }).where('id', '=', carol.id).execute()
    const inactive = await representation(alice, question)
    assert.equal(inactive.outcome, 'dead_end')
    assert.deepEqual(ids(inactive.chain), [bob.id, carol.id])
    assert.equal(inactive.representative, null)
    assert.equal(inactive.representative_answer, null)
  })
})

describe('which delegation wins (R2) and how the chain is followed', () => {
  test('the question delegation beats the topic’s, which beats the other tags', async () => {
    const [alice, bob, carol, dave] = [await w.person(), await w.person(), await w.person(), await w.person()]
    const [topic, other] = [await w.tag(), await w.tag()]
    const question = await w.question(author.id, [topic, other])
    const otherDelegation = await w.onTag(alice, other, dave, 0)
    assert.equal((await representation(alice, question)).delegation.id, otherDelegation.id)
    const topicDelegation = await w.onTag(alice, topic, carol, 50) // a worse priority, still the topic
    assert.equal((await representation(alice, question)).delegation.id, topicDelegation.id)
    const questionDelegation = await w.onQuestion(alice, question, bob)
    const body = await representation(alice, question)
    assert.deepEqual(body.delegation, { kind: 'question', id: questionDelegation.id, tag: null, trustee: bob.id })
    // A question block beats them all.
    await w.onQuestion(alice, question, null)
    assert.equal((await representation(alice, question)).outcome, 'blocked')
  })

  test('among the other tags: the user’s priority, then the tag’s position, then the oldest', async () => {
    const [alice, bob, carol, dave] = [await w.person(), await w.person(), await w.person(), await w.person()]
    const [topic, second, third] = [await w.tag(), await w.tag(), await w.tag()]
    const question = await w.question(author.id, [topic, second, third])
    // Equal priorities: the tag placed earlier on the question wins, whichever delegation is older.
    const onThird = await w.onTag(alice, third, bob, 4)
    const onSecond = await w.onTag(alice, second, carol, 4)
    assert.equal((await representation(alice, question)).delegation.id, onSecond.id)
    // A lower priority wins over the position.
    const reordered = await t.send('PATCH', `/api/tag_delegations/${onThird.id}/`, { priority: 1 }, alice.token)
    assert.equal(reordered.statusCode, 200)
    assert.equal((await representation(alice, question)).delegation.id, onThird.id)
    // The reorder action moves it back.
    const order = await t.send('POST', '/api/tag_delegations/reorder/', { order: [onSecond.id, onThird.id] }, alice.token)
    assert.equal(order.statusCode, 200, order.body)
    assert.equal((await representation(alice, question)).delegation.id, onSecond.id)
    // The same tag twice on the question cannot happen, so the oldest id decides only between equal positions:
    // two tags both at position 0 (two topics) with equal priorities.
    const [x, y] = [await w.tag(), await w.tag()]
    const twoTopics = await w.question(author.id, [x])
    await t.database.db.insertInto('question_tags').values({ question_id: twoTopics, tag_id: y, position: 0 }).execute()
    const older = await w.onTag(dave, y, bob, 2)
    await w.onTag(dave, x, carol, 2)
    assert.equal((await representation(dave, twoTopics)).delegation.id, older.id)
  })

  test('the winner is chosen without looking at whether the trustee answered', async () => {
    const [alice, bob, carol] = [await w.person(), await w.person(), await w.person()]
    const [topic, other] = [await w.tag(), await w.tag()]
    const question = await w.question(author.id, [topic, other])
    await w.onTag(alice, topic, bob) // bob never answers
    await w.onTag(alice, other, carol)
    await w.answer(carol, question, 4)
    const body = await representation(alice, question)
    assert.equal(body.outcome, 'dead_end')
    assert.deepEqual(ids(body.chain), [bob.id])
  })

  test('at each hop the trustee’s own winning delegation for this question is used, not the same tag', async () => {
    const [alice, bob, carol, dave] = [await w.person(), await w.person(), await w.person(), await w.person()]
    const [topic, other] = [await w.tag(), await w.tag()]
    const question = await w.question(author.id, [topic, other])
    await w.onTag(alice, topic, bob)
    await w.onTag(bob, other, carol) // bob has nothing on the topic, but this tag is on the question
    await w.onQuestion(carol, question, dave) // carol's question delegation beats anything she has on tags
    await w.onTag(carol, topic, alice)
    await w.answer(dave, question, null) // a skip is an answer
    const body = await representation(alice, question)
    assert.equal(body.outcome, 'represented')
    assert.deepEqual(ids(body.chain), [bob.id, carol.id, dave.id])
    assert.equal(body.representative.id, dave.id)
    assert.equal(body.representative_answer.value, null)
    assert.equal(body.representative_answer.skipped, true)
  })

  test('a multiple-choice answer: object_id is the choice', async () => {
    const [alice, bob] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic], { subtype: 'mcq' })
    const [, second] = await w.choices(question, 3)
    await w.onTag(alice, topic, bob)
    await w.choose(bob, second, 4)
    const body = await representation(alice, question)
    assert.equal(body.outcome, 'represented')
    assert.equal(body.representative_answer.object_id, second)
    assert.equal(body.representative_answer.value, 4)
    assert.equal(body.representative_answer.skipped, false)
  })

  test('revoking the delegation: no_delegation again', async () => {
    const [alice, bob] = [await w.person(), await w.person()]
    const topic = await w.tag()
    const question = await w.question(author.id, [topic])
    const delegation = await w.onTag(alice, topic, bob)
    await w.answer(bob, question, 3)
    assert.equal((await representation(alice, question)).outcome, 'represented')
    assert.equal((await t.send('DELETE', `/api/tag_delegations/${delegation.id}/`, undefined, alice.token)).statusCode, 204)
    assert.equal((await representation(alice, question)).outcome, 'no_delegation')
  })

  test('someone else’s unpublished question is 404; without credentials 403', async () => {
    const alice = await w.person()
    const draft = await w.question(author.id, [], { publish: false })
    assert.equal((await t.get(`/api/questions/${draft}/representation/`, { authorization: `Token ${alice.token}` })).statusCode, 404)
    assert.equal((await t.get(`/api/questions/${draft}/representation/`, { authorization: `Token ${author.token}` })).statusCode, 200)
    assert.equal((await t.get('/api/questions/999999/representation/', { authorization: `Token ${alice.token}` })).statusCode, 404)
    assert.equal((await t.get(`/api/questions/${draft}/representation/`)).statusCode, 403)
  })
})
