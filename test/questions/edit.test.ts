import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { recomputeStatistics } from '../../src/engines/figures/recompute.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertGroup, insertTag, insertUser } from '../helpers/fixtures.ts'
import { assertStoredEqualsRecomputed } from './stored-counters.ts'

let t: TestApp
const tokens: Record<string, string> = {}
const ids: Record<string, number> = {}

const ask = async (body: Record<string, unknown>) => {
  const response = await t.send('POST', '/api/questions/', body, tokens.author)
  assert.equal(response.statusCode, 201, response.body)
  return response.json()
}
const patch = (id: number, body: unknown, token = tokens.author) => t.send('PATCH', `/api/questions/${id}/`, body, token)
const detail = (id: number) => t.json(`/api/questions/${id}/`, { authorization: `Token ${tokens.author}` })

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['author', 'stranger', 'voter', 'staff']) {
    const user = await insertUser(db, { is_staff: name === 'staff' })
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  for (const name of ['red', 'green', 'blue']) ids[name] = (await insertTag(db, `Colour ${name}`)).id
  ids.group = (await insertGroup(db)).id
  const areas = await db.selectFrom('areas').select('id').orderBy('id').limit(2).execute()
  ids.areaA = areas[0].id
  ids.areaB = areas[1].id

  ids.likert = (
    await ask({ question: 'Is red the best colour?', tags: [{ tag: { id: ids.red } }, { tag: { id: ids.green } }], geo: ids.areaA })
  ).id
  const mcq = await ask({
    question: 'Which colour wins?',
    choices: [{ text: 'Red' }, { text: 'Green' }, { text: 'Blue' }],
    group: ids.group,
  })
  ids.mcq = mcq.id
  ids.chosen = mcq.choices[0].id
  ids.unchosen = mcq.choices[2].id
  ids.fresh = (await ask({ question: 'Nobody answered this yet', choices: [{ text: 'A' }, { text: 'B' }] })).id
  // Answers come from the vote endpoints; here they are rows, and the figures are rebuilt once from them.
  await db
    .insertInto('question_votes')
    .values([
      { question_id: ids.likert, user_id: ids.voter, value: 5 },
      { question_id: ids.likert, user_id: ids.stranger, value: null, skipped: true },
    ])
    .execute()
  await db
    .insertInto('question_choice_votes')
    .values({ question_id: ids.mcq, choice_id: ids.chosen, user_id: ids.voter, value: 5 })
    .execute()
  await recomputeStatistics(db)
})
after(() => t.close())

describe('who may edit', () => {
  test('a stranger: 403; nobody: 403; staff: 200; an unknown id: 404; another’s draft: 404 for strangers', async () => {
    assert.equal((await patch(ids.likert, { description: 'x' }, tokens.stranger)).statusCode, 403)
    assert.equal((await t.send('PATCH', `/api/questions/${ids.likert}/`, { description: 'x' })).statusCode, 403)
    const staff = await patch(ids.likert, { description: 'Edited by staff' }, tokens.staff)
    assert.equal(staff.statusCode, 200, staff.body)
    assert.equal(staff.json().description, 'Edited by staff')
    assert.equal((await patch(99999999, { description: 'x' })).statusCode, 404)
    const draft = await ask({ question: 'A private draft', publish: false })
    assert.equal((await patch(draft.id, { description: 'x' }, tokens.stranger)).statusCode, 404)
    assert.equal((await t.send('DELETE', `/api/questions/${draft.id}/`, undefined, tokens.stranger)).statusCode, 404)
  })
})

describe('what stays editable once answered', () => {
  test('the wording and subtype are frozen; the same title is fine', async () => {
    const refused = await patch(ids.likert, { question: 'Is blue the best colour?' })
    assert.equal(refused.statusCode, 400)
    assert.deepEqual(refused.json(), { question: ['This question has answers; its wording can no longer change.'] })
    assert.equal((await patch(ids.likert, { question: 'Is red the best colour?' })).statusCode, 200)
    const subtype = await patch(ids.likert, { subtype: 'mcq', choices: [{ text: 'a' }, { text: 'b' }] })
    assert.equal(subtype.statusCode, 400)
    assert.deepEqual(Object.keys(subtype.json()), ['subtype'])
    assert.equal((await detail(ids.likert)).question, 'Is red the best colour?')
  })

  test('description, publish, window and periodic interval change; the window is checked against what is stored', async () => {
    const response = await patch(ids.likert, {
      description: 'Context',
      publish: false,
      end_at: '2031-01-01T00:00:00Z',
      perodic_repeat_interval: 3600,
    })
    assert.equal(response.statusCode, 200, response.body)
    const q = response.json()
    assert.deepEqual([q.description, q.publish, q.end_at, q.perodic_repeat_interval], ['Context', false, '2031-01-01T00:00:00.000Z', 3600])
    const bad = await patch(ids.likert, { start_at: '2032-01-01T00:00:00Z' })
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(bad.json(), { end_at: ['The end of voting must be after its start.'] })
    assert.equal((await patch(ids.likert, { publish: true, end_at: null })).json().end_at, null)
  })

  test('answered choices stay; unanswered ones can be reworded or removed; new ones can be added', async () => {
    const mcq = await detail(ids.mcq)
    const [red, green, blue] = mcq.choices
    const remove = await patch(ids.mcq, {
      choices: [
        { id: green.id, text: green.text },
        { id: blue.id, text: blue.text },
      ],
    })
    assert.equal(remove.statusCode, 400)
    assert.deepEqual(remove.json(), { choices: ['The choice "Red" has answers; it cannot be removed.'] })
    const reword = await patch(ids.mcq, {
      choices: [
        { id: red.id, text: 'Crimson' },
        { id: green.id, text: 'Green' },
      ],
    })
    assert.deepEqual(reword.json(), { choices: ['The choice "Red" has answers; its text cannot change.'] })

    const response = await patch(ids.mcq, {
      choices: [{ id: blue.id, text: 'Navy blue' }, { id: red.id, text: 'Red' }, { text: 'Yellow' }],
    })
    assert.equal(response.statusCode, 200, response.body)
    const choices = response.json().choices
    assert.deepEqual(
      choices.map((c: any) => [c.text, c.store_number]),
      [
        ['Navy blue', 0],
        ['Red', 1],
        ['Yellow', 2],
      ],
    )
    assert.equal(choices[0].id, blue.id, 'kept choices keep their ids')
    assert.equal(choices[1].id, red.id)
    assert.equal(choices[1].direct_vote_count, 1, 'and their answers')
    assert.equal((await t.get(`/api/question_choices/${green.id}/`)).statusCode, 404, 'the dropped choice is gone')
  })

  test('choice ids of another question are refused', async () => {
    const fresh = await detail(ids.fresh)
    const response = await patch(ids.mcq, { choices: [{ id: fresh.choices[0].id, text: 'A' }, { text: 'x' }, { text: 'y' }] })
    assert.equal(response.statusCode, 400)
    assert.equal(response.json().choices[0], `Invalid pk "${fresh.choices[0].id}" - object does not exist.`)
  })

  test('the group is set when asked', async () => {
    const other = await insertGroup(t.database.db)
    const response = await patch(ids.mcq, { group: other.id })
    assert.equal(response.statusCode, 400)
    assert.deepEqual(Object.keys(response.json()), ['group'])
    assert.equal((await patch(ids.mcq, { group: ids.group })).statusCode, 200, 'the same group is no change')
  })
})

describe('an unanswered question changes freely', () => {
  test('title, subtype and choices; the slug stays', async () => {
    const before = await detail(ids.fresh)
    const response = await patch(ids.fresh, { question: 'Reworded before anyone answered', choices: [] })
    assert.equal(response.statusCode, 200, response.body)
    const q = response.json()
    assert.deepEqual([q.question, q.subtype, q.choices, q.slug], ['Reworded before anyone answered', 'likert', [], before.slug])
    const back = await patch(ids.fresh, { subtype: 'mcq', choices: [{ text: 'One' }, { text: 'Two' }] })
    assert.deepEqual(
      back.json().choices.map((c: any) => c.text),
      ['One', 'Two'],
    )
    assert.equal(back.json().subtype, 'mcq')
    assert.deepEqual((await patch(ids.fresh, { subtype: 'mcq', choices: [{ text: 'Alone' }] })).json(), {
      choices: ['A multiple-choice question needs at least two choices.'],
    })
  })
})

describe('tags, topic and area move their counters', () => {
  test('tags of an answered question carry its answers from tag to tag', async () => {
    const tag = async (id: number) => t.json(`/api/tags/${id}/`)
    const [red, blue] = [await tag(ids.red), await tag(ids.blue)]
    const response = await patch(ids.likert, { tags: [{ tag: { id: ids.blue } }, { tag: { id: ids.green } }] })
    assert.equal(response.statusCode, 200, response.body)
    const q = response.json()
    assert.deepEqual(
      q.tags.map((qt: any) => qt.tag.id),
      [ids.blue, ids.green],
    )
    assert.equal(q.topic, ids.blue, 'the old topic left, so the first tag is the topic')
    assert.deepEqual(
      [(await tag(ids.red)).questions_count, (await tag(ids.red)).votes_count],
      [red.questions_count - 1, red.votes_count - 2],
    )
    assert.deepEqual(
      [(await tag(ids.blue)).questions_count, (await tag(ids.blue)).votes_count],
      [blue.questions_count + 1, blue.votes_count + 2],
    )

    const topic = await patch(ids.likert, { topic: ids.green })
    assert.deepEqual([topic.json().topic, topic.json().tags.map((qt: any) => qt.tag.id)], [ids.green, [ids.green, ids.blue]])
    const added = await patch(ids.likert, { topic: ids.red })
    assert.deepEqual(
      added.json().tags.map((qt: any) => qt.tag.id),
      [ids.red, ids.green, ids.blue],
      'a new topic joins the tags',
    )
    assert.deepEqual((await patch(ids.likert, { tags: [{ tag: { id: 99999999 } }] })).json(), {
      tags: ['Invalid pk "99999999" - object does not exist.'],
    })
    await assertStoredEqualsRecomputed(t.database.db)
  })

  test('the area', async () => {
    const count = async (id: number) => (await t.json(`/api/geos/${id}/`)).question_count
    const [a, b] = [await count(ids.areaA), await count(ids.areaB)]
    assert.equal((await patch(ids.likert, { geo: ids.areaB })).json().geo, ids.areaB)
    assert.deepEqual([await count(ids.areaA), await count(ids.areaB)], [a - 1, b + 1])
    assert.equal((await patch(ids.likert, { geo: null })).json().geo, null)
    assert.equal(await count(ids.areaB), b)
    assert.deepEqual((await patch(ids.likert, { geo: 99999999 })).json(), { geo: ['Invalid pk "99999999" - object does not exist.'] })
  })
})

describe('PUT', () => {
  test('the title is required', async () => {
    const response = await t.send('PUT', `/api/questions/${ids.mcq}/`, { description: 'x' }, tokens.author)
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { question: ['This field is required.'] })
  })

  test('sending back the full question as read changes nothing', async () => {
    const before = await detail(ids.mcq)
    const response = await t.send('PUT', `/api/questions/${ids.mcq}/`, before, tokens.author)
    assert.equal(response.statusCode, 200, response.body)
    const after = response.json()
    assert.deepEqual({ ...after, modified_at: null }, { ...before, modified_at: null })
  })
})

describe('DELETE', () => {
  test('an answered question cannot be deleted: 400, and it stays', async () => {
    const response = await t.send('DELETE', `/api/questions/${ids.mcq}/`, undefined, tokens.author)
    assert.equal(response.statusCode, 400)
    assert.match(response.json().non_field_errors[0], /unpublish it instead/)
    assert.equal((await t.get(`/api/questions/${ids.mcq}/`)).statusCode, 200)
  })

  test('an unanswered one goes with its comments, collection items and links; every counter follows', async () => {
    const db = t.database.db
    const collection = await db
      .insertInto('question_collections')
      .values({ user_id: ids.stranger, name: 'Has it' })
      .returning('id')
      .executeTakeFirstOrThrow()
    const q = await ask({
      question: 'Short-lived',
      tags: [{ tag: { id: ids.red } }],
      geo: ids.areaA,
      links: [{ link: 'https://example.org' }],
      collections: [],
    })
    await db.insertInto('question_collection_items').values({ parent_id: collection.id, type: 'Q', question_id: q.id, order: 0 }).execute()
    const comment = await db
      .insertInto('comments')
      .values({ question_id: q.id, user_id: ids.stranger, text: 'Hm' })
      .returning('id')
      .executeTakeFirstOrThrow()
    await db.insertInto('comment_votes').values({ comment_id: comment.id, user_id: ids.voter, value: 5 }).execute()
    await recomputeStatistics(db)
    const before = await t.json(`/api/users/${ids.stranger}/`)

    const response = await t.send('DELETE', `/api/questions/${q.id}/`, undefined, tokens.staff)
    assert.equal(response.statusCode, 204)
    assert.equal(response.body, '')
    assert.equal((await t.get(`/api/questions/${q.id}/`)).statusCode, 404)
    assert.equal((await t.json(`/api/users/${ids.stranger}/`)).count_comments, before.count_comments - 1)
    await assertStoredEqualsRecomputed(db)
    assert.equal((await t.send('DELETE', `/api/questions/${q.id}/`, undefined, tokens.author)).statusCode, 404)
  })

  test('by a stranger: 403', async () => {
    assert.equal((await t.send('DELETE', `/api/questions/${ids.fresh}/`, undefined, tokens.stranger)).statusCode, 403)
  })
})

test('after every operation above, stored counters equal the recompute', async () => {
  await assertStoredEqualsRecomputed(t.database.db)
})
