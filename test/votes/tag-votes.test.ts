import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertRefused, assertStoredEqualsRecomputed, likertQuestion, voteState } from './support.ts'

let t: TestApp
const ids: Record<string, number> = {}
/** Question-tag ids, by name. */
const qt: Record<string, number> = {}
const tokens: Record<string, string> = {}

const auth = (token?: string): Record<string, string> => (token ? { authorization: `Token ${token}` } : {})
const vote = (body: unknown, token?: string) => t.send('POST', '/api/question_tag_votes/', body, token)
const form = (method: 'POST' | 'PATCH', url: string, fields: Record<string, string>, token: string) =>
  t.request({
    method,
    url,
    headers: { ...auth(token), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  })

/** Tags a question through the API, as its author does. */
async function tagQuestion(questionId: number, tagId: number): Promise<number> {
  const response = await t.send('POST', '/api/question_tags/', { question: questionId, tag: tagId }, tokens.author)
  assert.equal(response.statusCode, 201, response.body)
  return response.json().id
}

before(async () => {
  // Arithmetic on tiny questions: every private answer counts in the figures (docs/statistics.md).
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1' })
  const db = t.database.db
  const people = {
    author: await insertUser(db),
    voter: await insertUser(db),
    shy: await insertUser(db, { default_private: true }),
    other: await insertUser(db),
    stranger: await insertUser(db),
    staff: await insertUser(db, { is_staff: true }),
  }
  for (const [name, user] of Object.entries(people)) {
    ids[name] = user.id
    tokens[name] = await t.tokenFor(user.id)
  }
  for (const name of ['climate', 'energy', 'housing']) ids[name] = (await insertTag(db)).id
  ids.open = (await likertQuestion(db, people.author.id)).id
  ids.listed = (await likertQuestion(db, people.author.id)).id
  ids.edits = (await likertQuestion(db, people.author.id)).id
  ids.draft = (await likertQuestion(db, people.author.id, { publish: false })).id
  ids.closed = (
    await likertQuestion(db, people.author.id, { start_at: new Date('2020-01-01T00:00:00Z'), end_at: new Date('2021-01-01T00:00:00Z') })
  ).id
  qt.topic = await tagQuestion(ids.open, ids.climate)
  qt.second = await tagQuestion(ids.open, ids.energy)
  qt.listedA = await tagQuestion(ids.listed, ids.climate)
  qt.listedB = await tagQuestion(ids.listed, ids.housing)
  qt.edits = await tagQuestion(ids.edits, ids.housing)
  qt.draft = await tagQuestion(ids.draft, ids.climate)
  qt.closed = await tagQuestion(ids.closed, ids.energy)
})
after(() => t.close())

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']
function counts(item: Record<string, unknown>) {
  return Object.fromEntries([...LEVELS, 'skipped', 'vote_count'].map((name) => [name, item[`direct_${name}`]]))
}
function expected(ratings: Record<number, number>) {
  const levels = LEVELS.map((_, i) => ratings[i + 1] ?? 0)
  return { ...Object.fromEntries(LEVELS.map((name, i) => [name, levels[i]])), skipped: 0, vote_count: levels.reduce((a, b) => a + b, 0) }
}
/** The question-tag's direct counts in /api/question_tags/<id>/, checked to equal those in the question's `tags`. */
async function tagCounts(questionTagId: number, token?: string) {
  const item = await t.json(`/api/question_tags/${questionTagId}/`, auth(token))
  const question = await t.json(`/api/questions/${item.question}/`, auth(token))
  const embedded = question.tags.find((tag: { id: number }) => tag.id === questionTagId)
  assert.ok(embedded, 'the question-tag is among the question’s tags')
  for (const name of Object.keys(item).filter((key) => key.startsWith('direct_')))
    assert.equal(embedded[name], item[name], `${name} agrees`)
  const listed = await t.json(`/api/question_tags/?question=${item.question}`, auth(token))
  assert.equal(listed.results.find((row: { id: number }) => row.id === questionTagId).direct_vote_count, item.direct_vote_count)
  return { ...counts(item), value: item.direct_value }
}

describe('voting on how well a tag fits', () => {
  test('JSON {object_id: <question-tag>, value, private}: 201 with the vote; the question-tag’s direct_ family moves', async () => {
    const tagBefore = await t.json(`/api/tags/${ids.climate}/`)
    const response = await vote({ object_id: qt.topic, value: 4, private: false }, tokens.voter)
    assert.equal(response.statusCode, 201, response.body)
    const body = response.json()
    assert.deepEqual(Object.keys(body).sort(), [
      'created_at',
      'id',
      'modified_at',
      'object_id',
      'private',
      'question',
      'tag',
      'url',
      'user',
      'value',
    ])
    assert.deepEqual(
      [body.object_id, body.question, body.tag, body.value, body.private, body.user],
      [qt.topic, ids.open, ids.climate, 4, false, ids.voter],
    )
    assert.equal(body.url, `http://localhost:80/api/question_tag_votes/${body.id}/`)
    assert.match(body.created_at, TIMESTAMP)
    assert.equal(body.created_at, body.modified_at)
    assert.deepEqual(await tagCounts(qt.topic), { ...expected({ 4: 1 }), value: 4 })
    assert.deepEqual(await tagCounts(qt.second), { ...expected({}), value: 0 })
    const item = await t.json(`/api/question_tags/${qt.topic}/`)
    assert.equal(
      Object.keys(item).some((key) => key.startsWith('liquid_')),
      false,
      'question-tags carry the direct family only',
    )
    const q = await t.json(`/api/questions/${ids.open}/`, auth(tokens.voter))
    assert.equal(q.direct_vote_count, 0, 'a tag vote is not an answer to the question')
    assert.deepEqual(q.my_vote, [])
    assert.equal(
      (await t.json(`/api/tags/${ids.climate}/`)).votes_count,
      tagBefore.votes_count,
      'the tag’s votes_count counts answers, not tag votes',
    )
    assert.deepEqual(await t.json(`/api/question_tag_votes/${body.id}/`), body)
  })

  test('a second vote on the same question-tag replaces the first: 200, same id, counts move', async () => {
    const first = await t.json(`/api/question_tag_votes/?object_id=${qt.topic}&user=${ids.voter}`)
    const response = await vote({ object_id: qt.topic, value: 2 }, tokens.voter)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.json().id, first.results[0].id)
    assert.equal(response.json().value, 2)
    assert.notEqual(response.json().modified_at, response.json().created_at)
    assert.deepEqual(await tagCounts(qt.topic), { ...expected({ 2: 1 }), value: 2 })
    assert.equal((await t.json(`/api/question_tag_votes/?object_id=${qt.topic}`)).count, 1, 'one current vote per person and question-tag')
  })

  test('a form body: object_id and value as strings, private as "yes"', async () => {
    const response = await form('POST', '/api/question_tag_votes/', { object_id: String(qt.topic), value: '5' }, tokens.other)
    assert.equal(response.statusCode, 201, response.body)
    assert.deepEqual([response.json().value, response.json().private], [5, false])
    const again = await form('POST', '/api/question_tag_votes/', { object_id: String(qt.topic), value: '3', private: 'yes' }, tokens.other)
    assert.equal(again.statusCode, 200, again.body)
    assert.deepEqual([again.json().value, again.json().private], [3, true])
    assert.deepEqual(await tagCounts(qt.topic), { ...expected({ 2: 1, 3: 1 }), value: 2.5 })
  })

  test('private defaults to the voter’s own default; null reads as absent', async () => {
    const absent = await vote({ object_id: qt.second, value: 5 }, tokens.shy)
    assert.equal(absent.statusCode, 201, absent.body)
    assert.equal(absent.json().private, true)
    const explicit = await vote({ object_id: qt.second, value: 5, private: false }, tokens.shy)
    assert.equal(explicit.json().private, false)
    const nulled = await vote({ object_id: qt.second, value: 5, private: null }, tokens.shy)
    assert.equal(nulled.json().private, true)
    assert.deepEqual(await tagCounts(qt.second), { ...expected({ 5: 1 }), value: 5 })
  })

  test('the question’s voting window does not apply: a closed question’s tags can still be rated', async () => {
    const response = await vote({ object_id: qt.closed, value: 1 }, tokens.voter)
    assert.equal(response.statusCode, 201, response.body)
    assert.deepEqual(await tagCounts(qt.closed), { ...expected({ 1: 1 }), value: 1 })
  })

  test('the author and staff may rate the tags of an unpublished question; nobody else sees those votes', async () => {
    const own = await vote({ object_id: qt.draft, value: 4 }, tokens.author)
    assert.equal(own.statusCode, 201, own.body)
    assert.equal((await vote({ object_id: qt.draft, value: 2 }, tokens.staff)).statusCode, 201)
    assert.equal((await t.json(`/api/question_tag_votes/?question=${ids.draft}`)).count, 0)
    assert.equal((await t.json(`/api/question_tag_votes/?question=${ids.draft}`, auth(tokens.voter))).count, 0)
    assert.equal((await t.json(`/api/question_tag_votes/?question=${ids.draft}`, auth(tokens.author))).count, 2)
    assert.equal((await t.get(`/api/question_tag_votes/${own.json().id}/`)).statusCode, 404)
    assert.deepEqual(await tagCounts(qt.draft, tokens.author), { ...expected({ 2: 1, 4: 1 }), value: 3 })
    await assertStoredEqualsRecomputed(t.database.db, 'after tag votes')
  })
})

describe('refusals: 400 naming the field, and nothing changes', () => {
  const cases: [string, () => unknown, string, () => Record<string, string[]>][] = [
    [
      'a question-tag that does not exist',
      () => ({ object_id: 987654, value: 3 }),
      'voter',
      () => ({ object_id: ['Invalid pk "987654" - object does not exist.'] }),
    ],
    [
      'an id no row can have',
      () => ({ object_id: 99999999999, value: 3 }),
      'voter',
      () => ({ object_id: ['Invalid pk "99999999999" - object does not exist.'] }),
    ],
    ['a negative id', () => ({ object_id: -1, value: 3 }), 'voter', () => ({ object_id: ['Invalid pk "-1" - object does not exist.'] })],
    ['no question-tag', () => ({ value: 3 }), 'voter', () => ({ object_id: ['This field is required.'] })],
    [
      'a question-tag id that is not a number',
      () => ({ object_id: 'climate', value: 3 }),
      'voter',
      () => ({ object_id: ['A valid integer is required.'] }),
    ],
    ['no value', () => ({ object_id: qt.topic }), 'voter', () => ({ value: ['This field is required.'] })],
    [
      'value above 5',
      () => ({ object_id: qt.topic, value: 6 }),
      'voter',
      () => ({ value: ['Ensure this value is less than or equal to 5.'] }),
    ],
    [
      'value below 1',
      () => ({ object_id: qt.topic, value: 0 }),
      'voter',
      () => ({ value: ['Ensure this value is greater than or equal to 1.'] }),
    ],
    ['value not a number', () => ({ object_id: qt.topic, value: 'fits' }), 'voter', () => ({ value: ['A valid integer is required.'] })],
    ['value with a fraction', () => ({ object_id: qt.topic, value: 2.5 }), 'voter', () => ({ value: ['A valid integer is required.'] })],
    [
      'private not a boolean',
      () => ({ object_id: qt.topic, value: 3, private: 'sometimes' }),
      'voter',
      () => ({ private: ['Must be a valid boolean.'] }),
    ],
    [
      'a tag of someone else’s unpublished question',
      () => ({ object_id: qt.draft, value: 3 }),
      'voter',
      () => ({ object_id: [`Invalid pk "${qt.draft}" - object does not exist.`] }),
    ],
  ]
  for (const [label, body, who, errors] of cases) {
    test(label, () => assertRefused(t.database.db, () => vote(body(), tokens[who]), errors()))
  }

  test('a tag vote cannot be skipped: value null is refused', async () => {
    const before = await voteState(t.database.db)
    const response = await vote({ object_id: qt.topic, value: null }, tokens.voter)
    assert.equal(response.statusCode, 400, response.body)
    assert.deepEqual(Object.keys(response.json()), ['value'])
    assert.equal(await voteState(t.database.db), before)
  })

  test('without credentials: 403; malformed JSON and a list body: 400; nothing changes', async () => {
    const before = await voteState(t.database.db)
    const anonymous = await vote({ object_id: qt.topic, value: 3 })
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, { detail: 'Authentication credentials were not provided.' }])
    const malformed = await t.request({
      method: 'POST',
      url: '/api/question_tag_votes/',
      headers: { ...auth(tokens.voter), 'content-type': 'application/json' },
      payload: '{"value": 3',
    })
    assert.equal(malformed.statusCode, 400)
    assert.match(malformed.json().detail, /^JSON parse error/)
    const list = await vote([qt.topic, 3], tokens.voter)
    assert.equal(list.statusCode, 400)
    assert.deepEqual(Object.keys(list.json()), ['non_field_errors'])
    assert.equal(await voteState(t.database.db), before)
  })
})

describe('changing and withdrawing a tag vote', () => {
  const path = (id: number) => `/api/question_tag_votes/${id}/`
  let mine: number
  let others: number

  before(async () => {
    mine = (await vote({ object_id: qt.edits, value: 5, private: false }, tokens.voter)).json().id
    others = (await vote({ object_id: qt.edits, value: 4, private: false }, tokens.other)).json().id
  })

  test('the voter may PATCH value and privacy (a form too); the counts follow the value', async () => {
    const response = await t.send('PATCH', path(mine), { value: 1 }, tokens.voter)
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual([response.json().value, response.json().object_id, response.json().private], [1, qt.edits, false])
    assert.deepEqual(await tagCounts(qt.edits), { ...expected({ 1: 1, 4: 1 }), value: 2.5 })
    const privacy = await form('PATCH', path(mine), { private: 'true' }, tokens.voter)
    assert.equal(privacy.statusCode, 200, privacy.body)
    assert.deepEqual([privacy.json().private, privacy.json().value], [true, 1])
    assert.deepEqual(await tagCounts(qt.edits), { ...expected({ 1: 1, 4: 1 }), value: 2.5 }, 'privacy does not move the counts')
    const bad = await t.send('PATCH', path(mine), { value: 9 }, tokens.voter)
    assert.deepEqual([bad.statusCode, bad.json()], [400, { value: ['Ensure this value is less than or equal to 5.'] }])
    await assertStoredEqualsRecomputed(t.database.db, 'after tag vote edits')
  })

  test('strangers: 403 on a public vote, 404 on a private one; without credentials 403; nothing changes', async () => {
    const before = await voteState(t.database.db)
    const patch = await t.send('PATCH', path(others), { value: 1 }, tokens.stranger)
    assert.deepEqual([patch.statusCode, patch.json()], [403, { detail: 'You do not have permission to perform this action.' }])
    assert.equal((await t.send('DELETE', path(others), undefined, tokens.stranger)).statusCode, 403)
    assert.equal((await t.send('DELETE', path(others))).statusCode, 403)
    assert.equal((await t.send('PATCH', path(mine), { value: 5 }, tokens.stranger)).statusCode, 404)
    assert.equal((await t.send('DELETE', path(mine), undefined, tokens.stranger)).statusCode, 404)
    assert.equal(await voteState(t.database.db), before)
  })

  test('staff may PATCH and DELETE anyone’s vote', async () => {
    const patched = await t.send('PATCH', path(others), { value: 2 }, tokens.staff)
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual([patched.json().value, patched.json().user], [2, ids.other])
    assert.deepEqual(await tagCounts(qt.edits), { ...expected({ 1: 1, 2: 1 }), value: 1.5 })
    assert.equal((await t.send('DELETE', path(others), undefined, tokens.staff)).statusCode, 204)
    assert.deepEqual(await tagCounts(qt.edits), { ...expected({ 1: 1 }), value: 1 })
  })

  test('the voter may DELETE: 204, the vote is gone and leaves the counts; a new vote is a new one (201)', async () => {
    const response = await t.send('DELETE', path(mine), undefined, tokens.voter)
    assert.equal(response.statusCode, 204)
    assert.equal(response.body, '')
    assert.equal((await t.get(path(mine), auth(tokens.voter))).statusCode, 404)
    assert.equal((await t.send('DELETE', path(mine), undefined, tokens.voter)).statusCode, 404)
    assert.deepEqual(await tagCounts(qt.edits), { ...expected({}), value: 0 })
    const again = await vote({ object_id: qt.edits, value: 3 }, tokens.voter)
    assert.equal(again.statusCode, 201)
    assert.notEqual(again.json().id, mine)
    await assertStoredEqualsRecomputed(t.database.db, 'after tag vote withdrawals')
  })
})

describe('the listing', () => {
  const listed: Record<string, number> = {}
  const list = (query: string, token?: string) => t.json(`/api/question_tag_votes/?question=${ids.listed}${query}`, auth(token))
  const idsOf = (page: { results: { id: number }[] }) => page.results.map((r) => r.id)

  before(async () => {
    // A by voter 5, A by other 2 (private), A by shy 3 (private by default), B by voter 4.
    listed.voter = (await vote({ object_id: qt.listedA, value: 5, private: false }, tokens.voter)).json().id
    listed.other = (await vote({ object_id: qt.listedA, value: 2, private: true }, tokens.other)).json().id
    listed.shy = (await vote({ object_id: qt.listedA, value: 3 }, tokens.shy)).json().id
    listed.voterB = (await vote({ object_id: qt.listedB, value: 4, private: false }, tokens.voter)).json().id
  })

  test('anyone sees public votes; voters their own private ones too; staff all', async () => {
    assert.deepEqual(idsOf(await list('')).sort(), [listed.voter, listed.voterB].sort())
    assert.deepEqual(idsOf(await list('', tokens.other)).sort(), [listed.voter, listed.other, listed.voterB].sort())
    assert.equal((await list('', tokens.staff)).count, 4)
    assert.equal((await t.get(`/api/question_tag_votes/${listed.shy}/`, auth(tokens.voter))).statusCode, 404)
    assert.equal((await t.get(`/api/question_tag_votes/${listed.shy}/`, auth(tokens.shy))).statusCode, 200)
  })

  test('filters: object_id and question_tag, question, tag, user', async () => {
    const staff = auth(tokens.staff)
    assert.deepEqual(idsOf(await t.json(`/api/question_tag_votes/?object_id=${qt.listedB}`, staff)), [listed.voterB])
    assert.deepEqual(
      idsOf(await t.json(`/api/question_tag_votes/?question_tag=${qt.listedA}`, staff)).sort(),
      [listed.voter, listed.other, listed.shy].sort(),
    )
    assert.deepEqual(idsOf(await list(`&tag=${ids.housing}`, tokens.staff)), [listed.voterB])
    const housing = await t.json(`/api/question_tag_votes/?tag=${ids.housing}`, staff)
    assert.deepEqual(
      [...new Set(housing.results.map((r: { question: number }) => r.question))].sort(),
      [ids.listed, ids.edits].sort(),
      'without question: the tag on every question',
    )
    const climate = await t.json(`/api/question_tag_votes/?tag=${ids.climate}`, staff)
    assert.ok(climate.results.every((r: { tag: number }) => r.tag === ids.climate))
    assert.ok(
      climate.results.some((r: { question: number }) => r.question === ids.open),
      'the tag on every question',
    )
    assert.deepEqual(idsOf(await list(`&user=${ids.voter}`)).sort(), [listed.voter, listed.voterB].sort())
    assert.equal((await list(`&user=${ids.voter}&tag=${ids.housing}`)).count, 1, 'filters combine')
    const bad = await t.get('/api/question_tag_votes/?tag=housing')
    assert.deepEqual([bad.statusCode, bad.json()], [400, { tag: ['Enter a whole number.'] }])
  })

  test('ordering: newest first by default; by value, user, question-tag and tag; unknown names fall back', async () => {
    const order = [listed.voter, listed.other, listed.shy, listed.voterB]
    const sorted = (ordering: string) => list(`&ordering=${ordering}`, tokens.staff).then(idsOf)
    assert.deepEqual(await list('', tokens.staff).then(idsOf), [...order].reverse())
    assert.deepEqual(await sorted('created_at'), order)
    assert.deepEqual(await sorted('id'), order)
    assert.deepEqual(await sorted('-modified_at'), [...order].reverse())
    assert.deepEqual(await sorted('value'), [listed.other, listed.shy, listed.voterB, listed.voter])
    assert.deepEqual(await sorted('-value'), [listed.voter, listed.voterB, listed.shy, listed.other])
    assert.ok(qt.listedA < qt.listedB)
    assert.deepEqual(await sorted('-question_tag'), [listed.voterB, listed.shy, listed.other, listed.voter])
    assert.deepEqual(await sorted('object_id,-value'), [listed.voter, listed.shy, listed.other, listed.voterB])
    const tagOrder =
      ids.climate < ids.housing
        ? [listed.voter, listed.other, listed.shy, listed.voterB]
        : [listed.voterB, listed.voter, listed.other, listed.shy]
    assert.deepEqual(await sorted('tag'), tagOrder)
    const byUser = [...order].sort((x, y) => userOf(x) - userOf(y) || x - y)
    assert.deepEqual(await sorted('user'), byUser)
    assert.deepEqual(await sorted('question,id'), order)
    assert.deepEqual(await sorted('bogus'), [...order].reverse())
  })

  function userOf(voteId: number): number {
    const name = Object.entries(listed).find(([, id]) => id === voteId)![0]
    return ids[name === 'voterB' ? 'voter' : name]
  }

  test('removing a tag from the question takes its votes with it; the figures stay exact', async () => {
    const response = await t.send('DELETE', `/api/question_tags/${qt.listedA}/`, undefined, tokens.author)
    assert.equal(response.statusCode, 204, response.body)
    assert.equal((await list('', tokens.staff)).count, 1)
    assert.equal((await t.get(`/api/question_tag_votes/${listed.voter}/`, auth(tokens.staff))).statusCode, 404)
    await assertStoredEqualsRecomputed(t.database.db, 'after removing a tagged question-tag')
  })
})
