import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertRefused, assertStoredEqualsRecomputed, likertQuestion, mcqQuestion, voteState } from './support.ts'

let t: TestApp
const ids: Record<string, number> = {}
const choices: Record<string, number[]> = {}
const tokens: Record<string, string> = {}

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
  const mcq = async (name: string, values: Parameters<typeof mcqQuestion>[3] = {}) => {
    const question = await mcqQuestion(db, people.author.id, 3, values)
    ids[name] = question.id
    choices[name] = question.choiceIds
  }
  await mcq('open')
  await mcq('second')
  await mcq('edits')
  await mcq('listed')
  await mcq('closing')
  await mcq('spare')
  await mcq('draft', { publish: false })
  await mcq('closed', { start_at: new Date('2020-01-01T00:00:00Z'), end_at: new Date('2021-01-01T00:00:00Z') })
  await mcq('future', { start_at: new Date('2999-01-01T00:00:00Z') })
  // A choice on a likert question: not something the API creates, but the vote still has to refuse it.
  ids.likert = (await likertQuestion(db, people.author.id)).id
  const stray = await db
    .insertInto('question_choices')
    .values({ question_id: ids.likert, text: 'Stray', store_number: 0 })
    .returning('id')
    .executeTakeFirstOrThrow()
  ids.strayChoice = stray.id
  const collection = await db
    .insertInto('question_collections')
    .values({ user_id: people.author.id, name: 'Survey' })
    .returning('id')
    .executeTakeFirstOrThrow()
  ids.collection = collection.id
})
after(() => t.close())

const auth = (token?: string): Record<string, string> => (token ? { authorization: `Token ${token}` } : {})
const question = (id: number, token?: string) => t.json(`/api/questions/${id}/`, auth(token))
const form = (method: 'POST' | 'PATCH', url: string, fields: Record<string, string>, token: string) =>
  t.request({
    method,
    url,
    headers: { ...auth(token), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  })
const vote = (body: unknown, token?: string, url = '/api/question_choice_votes/') => t.send('POST', url, body, token)

const LEVELS = ['minimum', 'low', 'medium', 'high', 'maximum']
/** The counts of a family as the API shows them: five levels, skipped and vote_count. */
function counts(item: Record<string, unknown>, prefix: 'direct' | 'liquid') {
  return Object.fromEntries([...LEVELS, 'skipped', 'vote_count'].map((name) => [name, item[`${prefix}_${name}`]]))
}
/** What a family should read: ratings given as {rating: count}. */
function expected(ratings: Record<number, number>, skipped = 0) {
  const levels = LEVELS.map((_, i) => ratings[i + 1] ?? 0)
  return { ...Object.fromEntries(LEVELS.map((name, i) => [name, levels[i]])), skipped, vote_count: levels.reduce((a, b) => a + b, 0) }
}
async function choiceCounts(questionId: number, choiceId: number, prefix: 'direct' | 'liquid' = 'direct') {
  const q = await question(questionId)
  const choice = q.choices.find((c: { id: number }) => c.id === choiceId)
  assert.ok(choice, `choice ${choiceId} is among the question's choices`)
  return counts(choice, prefix)
}

describe('the clients’ bodies', () => {
  test('the old web app: JSON {value: 5, object_id: <choice>, private}; 201 with the vote, my_vote and the choice’s counts', async () => {
    const [first] = choices.open
    const response = await vote({ value: 5, object_id: first, private: false }, tokens.voter)
    assert.equal(response.statusCode, 201, response.body)
    const body = response.json()
    assert.deepEqual(Object.keys(body).sort(), [
      'collection',
      'created_at',
      'id',
      'modified_at',
      'object_id',
      'private',
      'question',
      'skipped',
      'url',
      'user',
      'value',
    ])
    assert.equal(body.object_id, first)
    assert.equal(body.question, ids.open)
    assert.equal(body.value, 5)
    assert.equal(body.skipped, false)
    assert.equal(body.private, false)
    assert.equal(body.collection, null)
    assert.equal(body.user, ids.voter)
    assert.equal(body.url, `http://localhost:80/api/question_choice_votes_light/${body.id}/`)
    assert.match(body.created_at, TIMESTAMP)
    assert.equal(body.created_at, body.modified_at)

    const q = await question(ids.open, tokens.voter)
    assert.equal(q.my_vote.length, 1)
    assert.equal(q.my_vote[0].object_id, first, 'for a multiple-choice question my_vote names the choice')
    assert.equal(q.my_vote[0].value, 5)
    assert.equal(q.my_vote[0].private, false)
    assert.equal(q.my_vote[0].modified_at, body.modified_at)
    const chosen = q.choices.find((c: { id: number }) => c.id === first)
    assert.deepEqual(counts(chosen, 'direct'), expected({ 5: 1 }))
    assert.deepEqual(counts(chosen, 'liquid'), expected({ 5: 1 }))
    assert.equal(chosen.direct_value, 5)
    for (const other of q.choices.filter((c: { id: number }) => c.id !== first)) assert.equal(other.direct_vote_count, 0)
    assert.equal(q.direct_vote_count, 0, 'a choice answer counts on its choice, not in the question’s likert figures')
    assert.equal(q.liquid_vote_count, 0)
    assert.deepEqual((await question(ids.open)).my_vote, [], 'nobody else’s vote is "my" vote')
    assert.deepEqual((await question(ids.open, tokens.other)).my_vote, [])
    const listed = await t.json(`/api/question_choices/${first}/`)
    assert.equal(listed.direct_maximum, 1)
    assert.equal(listed.liquid_vote_count, 1)
  })

  test('the web app: collection and analytics; another choice replaces the pick (200), the earlier one kept in the history', async () => {
    const [first, second] = choices.open
    const body = {
      object_id: second,
      value: 5,
      collection: ids.collection,
      private: true,
      analytics_interface: 'collection',
      analytics_os: 'Linux',
      analytics_browser: null,
      analytics_parent_url: `https://example.org/${'y'.repeat(2000)}`,
      analytics_location: '51.5,-0.12,20',
    }
    const response = await vote(body, tokens.voter)
    assert.equal(response.statusCode, 200, response.body)
    const replaced = response.json()
    assert.equal(replaced.object_id, second)
    assert.equal(replaced.question, ids.open)
    assert.equal(replaced.collection, ids.collection)
    assert.equal(replaced.private, true)
    assert.notEqual(replaced.modified_at, replaced.created_at)
    for (const key of Object.keys(replaced)) assert.ok(!key.startsWith('analytics_'), 'analytics are stored, never shown')
    const row = await t.database.db.selectFrom('question_choice_votes').selectAll().where('id', '=', replaced.id).executeTakeFirstOrThrow()
    assert.equal(row.analytics_interface, 'collection')
    assert.equal(row.analytics_os, 'Linux')
    assert.equal(row.analytics_browser, null)
    assert.equal(row.analytics_location, '51.5,-0.12,20')
    assert.equal(row.analytics_parent_url!.length, 1000, 'over-long analytics strings are cut')
    const history = await t.database.db.selectFrom('question_choice_vote_history').selectAll().where('user_id', '=', ids.voter).execute()
    assert.equal(history.length, 1)
    assert.deepEqual([history[0].choice_id, history[0].question_id, history[0].value, history[0].private], [first, ids.open, 5, false])

    assert.deepEqual(await choiceCounts(ids.open, first), expected({}))
    assert.deepEqual(await choiceCounts(ids.open, second), expected({ 5: 1 }))
    assert.deepEqual(await choiceCounts(ids.open, second, 'liquid'), expected({ 5: 1 }))
    const q = await question(ids.open, tokens.voter)
    assert.equal(q.my_vote.length, 1, 'one current pick per question')
    assert.deepEqual([q.my_vote[0].object_id, q.my_vote[0].value, q.my_vote[0].private], [second, 5, true])
    assert.equal(q.my_vote[0].modified_at, replaced.modified_at)
    assert.deepEqual((await question(ids.open, tokens.other)).my_vote, [], 'a private pick is still nobody else’s')
  })

  test('the same choice again is a new answer too: 200, history grows, the counts do not double', async () => {
    const [, second] = choices.open
    const response = await vote({ object_id: second, value: 4 }, tokens.voter)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.json().value, 4)
    assert.equal(response.json().private, false, 'private absent: the voter’s default, not the earlier pick’s')
    assert.equal(response.json().collection, null, 'collection absent: none')
    assert.deepEqual(await choiceCounts(ids.open, second), expected({ 4: 1 }))
    const history = await t.database.db
      .selectFrom('question_choice_vote_history')
      .select('value')
      .where('user_id', '=', ids.voter)
      .orderBy('id')
      .execute()
    assert.deepEqual(
      history.map((h) => h.value),
      [5, 5],
    )
  })

  test('the form body: object_id and value as strings, private as "on"', async () => {
    const [first] = choices.open
    const response = await form('POST', '/api/question_choice_votes/', { object_id: String(first), value: '5' }, tokens.other)
    assert.equal(response.statusCode, 201, response.body)
    assert.deepEqual([response.json().object_id, response.json().value, response.json().private], [first, 5, false])
    const again = await form('POST', '/api/question_choice_votes/', { object_id: String(first), value: '3', private: 'on' }, tokens.other)
    assert.equal(again.statusCode, 200, again.body)
    assert.deepEqual([again.json().value, again.json().private], [3, true])
    const skip = await form('POST', '/api/question_choice_votes/', { object_id: String(choices.second[2]), value: '' }, tokens.other)
    assert.equal(skip.statusCode, 201, skip.body)
    assert.deepEqual([skip.json().value, skip.json().skipped], [null, true])
    assert.deepEqual(await choiceCounts(ids.open, first), expected({ 3: 1 }))
    await assertStoredEqualsRecomputed(t.database.db, 'after the client bodies')
  })

  test('both URLs serve the same resource', async () => {
    const response = await vote({ object_id: choices.second[0], value: 5 }, tokens.voter, '/api/question_choice_votes_light/')
    assert.equal(response.statusCode, 201, response.body)
    const id = response.json().id
    const heavy = await t.json(`/api/question_choice_votes/${id}/`)
    const light = await t.json(`/api/question_choice_votes_light/${id}/`)
    assert.deepEqual(heavy, light)
    assert.equal(heavy.object_id, choices.second[0])
    const replaced = await vote({ object_id: choices.second[1], value: 5 }, tokens.voter)
    assert.equal(replaced.statusCode, 200, 'a pick made through one URL is replaced through the other')
    assert.equal(replaced.json().id, id, 'the vote keeps its id when replaced')
  })
})

describe('skips, privacy and the user’s counters', () => {
  test('value null, or skipped true without a value, is a skip: counted in skipped only', async () => {
    const [, , third] = choices.second
    const skip = await vote({ object_id: third, value: null }, tokens.author)
    assert.equal(skip.statusCode, 201, skip.body)
    assert.deepEqual([skip.json().value, skip.json().skipped], [null, true])
    const alsoSkip = await vote({ object_id: third, skipped: true }, tokens.staff)
    assert.equal(alsoSkip.statusCode, 201, alsoSkip.body)
    assert.equal(alsoSkip.json().skipped, true)
    // `other` skipped it by form earlier.
    assert.deepEqual(await choiceCounts(ids.second, third), expected({}, 3))
    assert.deepEqual(await choiceCounts(ids.second, third, 'liquid'), expected({}, 3))
    const q = await question(ids.second, tokens.author)
    assert.deepEqual([q.my_vote[0].object_id, q.my_vote[0].value, q.my_vote[0].skipped], [third, null, true])
  })

  test('private defaults to the voter’s own default; null reads as absent', async () => {
    const absent = await vote({ object_id: choices.second[0], value: 5 }, tokens.shy)
    assert.equal(absent.statusCode, 201, absent.body)
    assert.equal(absent.json().private, true)
    const explicit = await vote({ object_id: choices.second[0], value: 5, private: false }, tokens.shy)
    assert.equal(explicit.json().private, false)
    const nulled = await vote({ object_id: choices.second[0], value: 5, private: null }, tokens.shy)
    assert.equal(nulled.json().private, true)
  })

  test('count_choice_votes counts current picks (skips and private ones too), not replacements', async () => {
    // The user sees their own counters in full; anyone else sees those of public answers only.
    const user = async (id: number, token?: string) => t.json(`/api/users/${id}/`, auth(token))
    const before = await user(ids.shy, tokens.shy)
    const seenBefore = await user(ids.shy)
    await vote({ object_id: choices.second[1], value: 5 }, tokens.shy)
    await vote({ object_id: choices.spare[0], value: null }, tokens.shy)
    const after = await user(ids.shy, tokens.shy)
    const seenAfter = await user(ids.shy)
    assert.equal(seenAfter.count_choice_votes, seenBefore.count_choice_votes, 'private picks move no counter others see')
    assert.equal(seenAfter.last_answer_time, seenBefore.last_answer_time)
    assert.equal(after.count_choice_votes, before.count_choice_votes + 1)
    assert.equal(after.count_votes, before.count_votes + 1)
    assert.equal(after.count_question_votes, before.count_question_votes)
    assert.equal(after.count_choice_votes, 2, 'one pick on each of two questions')
    await assertStoredEqualsRecomputed(t.database.db, 'after skips and private picks')
  })
})

describe('refusals: 400 naming the field, and nothing changes', () => {
  const cases: [string, () => unknown, string, () => Record<string, string[]>][] = [
    [
      'a choice that does not exist',
      () => ({ object_id: 987654, value: 5 }),
      'voter',
      () => ({ object_id: ['Invalid pk "987654" - object does not exist.'] }),
    ],
    [
      'a choice id no row can have',
      () => ({ object_id: 99999999999, value: 5 }),
      'voter',
      () => ({ object_id: ['Invalid pk "99999999999" - object does not exist.'] }),
    ],
    [
      'a negative choice id',
      () => ({ object_id: -3, value: 5 }),
      'voter',
      () => ({ object_id: ['Invalid pk "-3" - object does not exist.'] }),
    ],
    ['no choice', () => ({ value: 5 }), 'voter', () => ({ object_id: ['This field is required.'] })],
    [
      'a choice id that is not a number',
      () => ({ object_id: 'first', value: 5 }),
      'voter',
      () => ({ object_id: ['A valid integer is required.'] }),
    ],
    [
      'value above 5',
      () => ({ object_id: choices.open[0], value: 6 }),
      'voter',
      () => ({ value: ['Ensure this value is less than or equal to 5.'] }),
    ],
    [
      'value below 1',
      () => ({ object_id: choices.open[0], value: 0 }),
      'voter',
      () => ({ value: ['Ensure this value is greater than or equal to 1.'] }),
    ],
    [
      'value not a number',
      () => ({ object_id: choices.open[0], value: 'five' }),
      'voter',
      () => ({ value: ['A valid integer is required.'] }),
    ],
    [
      'value with a fraction',
      () => ({ object_id: choices.open[0], value: 4.5 }),
      'voter',
      () => ({ value: ['A valid integer is required.'] }),
    ],
    ['value a list', () => ({ object_id: choices.open[0], value: [5] }), 'voter', () => ({ value: ['A valid integer is required.'] })],
    ['no value and no skip', () => ({ object_id: choices.open[0] }), 'voter', () => ({ value: ['This field is required.'] })],
    [
      'a value that is skipped',
      () => ({ object_id: choices.open[0], value: 5, skipped: true }),
      'voter',
      () => ({ skipped: ['A vote with a value cannot be skipped.'] }),
    ],
    [
      'a null value that is not skipped',
      () => ({ object_id: choices.open[0], value: null, skipped: false }),
      'voter',
      () => ({ value: ['This field may not be null.'] }),
    ],
    [
      'private not a boolean',
      () => ({ object_id: choices.open[0], value: 5, private: 'perhaps' }),
      'voter',
      () => ({ private: ['Must be a valid boolean.'] }),
    ],
    [
      'an unknown collection',
      () => ({ object_id: choices.open[0], value: 5, collection: 876543 }),
      'voter',
      () => ({ collection: ['Invalid pk "876543" - object does not exist.'] }),
    ],
    [
      'a collection that is not a number',
      () => ({ object_id: choices.open[0], value: 5, collection: 'mine' }),
      'voter',
      () => ({ collection: ['A valid integer is required.'] }),
    ],
    [
      'a choice of someone else’s unpublished question',
      () => ({ object_id: choices.draft[0], value: 5 }),
      'voter',
      () => ({ object_id: [`Invalid pk "${choices.draft[0]}" - object does not exist.`] }),
    ],
    [
      'a closed question',
      () => ({ object_id: choices.closed[0], value: 5 }),
      'voter',
      () => ({ object_id: ['Voting on this question is closed.'] }),
    ],
    [
      'a question not open yet',
      () => ({ object_id: choices.future[1], value: 5 }),
      'voter',
      () => ({ object_id: ['Voting on this question is not open yet.'] }),
    ],
    [
      'a choice of a likert question',
      () => ({ object_id: ids.strayChoice, value: 5 }),
      'voter',
      () => ({ object_id: ['This choice belongs to a question that is not multiple choice.'] }),
    ],
  ]
  for (const [label, body, who, errors] of cases) {
    test(label, () => assertRefused(t.database.db, () => vote(body(), tokens[who]), errors()))
  }

  test('a list instead of an object: 400 under non_field_errors', async () => {
    const before = await voteState(t.database.db)
    const response = await vote([choices.open[0], 5], tokens.voter)
    assert.equal(response.statusCode, 400)
    assert.deepEqual(Object.keys(response.json()), ['non_field_errors'])
    assert.match(response.json().non_field_errors[0], /^Invalid data\. Expected a dictionary/)
    assert.equal(await voteState(t.database.db), before)
  })

  test('a closed window refuses the light URL and staff alike', async () => {
    const before = await voteState(t.database.db)
    const light = await vote({ object_id: choices.closed[1], value: 5 }, tokens.voter, '/api/question_choice_votes_light/')
    assert.equal(light.statusCode, 400)
    assert.deepEqual(light.json(), { object_id: ['Voting on this question is closed.'] })
    const staff = await vote({ object_id: choices.closed[1], value: 5 }, tokens.staff)
    assert.deepEqual([staff.statusCode, staff.json()], [400, { object_id: ['Voting on this question is closed.'] }])
    assert.equal(await voteState(t.database.db), before)
  })

  test('without credentials: 403; a bad token: 401; malformed JSON: 400; nothing changes', async () => {
    const before = await voteState(t.database.db)
    const anonymous = await vote({ object_id: choices.open[0], value: 5 })
    assert.equal(anonymous.statusCode, 403)
    assert.deepEqual(anonymous.json(), { detail: 'Authentication credentials were not provided.' })
    const badToken = await vote({ object_id: choices.open[0], value: 5 }, 'not-a-token')
    assert.equal(badToken.statusCode, 401)
    const malformed = await t.request({
      method: 'POST',
      url: '/api/question_choice_votes/',
      headers: { ...auth(tokens.voter), 'content-type': 'application/json' },
      payload: '{"object_id": 5,',
    })
    assert.equal(malformed.statusCode, 400)
    assert.match(malformed.json().detail, /^JSON parse error/)
    const empty = await t.request({ method: 'POST', url: '/api/question_choice_votes/', headers: auth(tokens.voter) })
    assert.equal(empty.statusCode, 400)
    assert.deepEqual(empty.json().object_id, ['This field is required.'])
    assert.equal(await voteState(t.database.db), before)
  })

  test('the author and staff may pick on an unpublished question; nobody else sees those picks', async () => {
    const own = await vote({ object_id: choices.draft[0], value: 5 }, tokens.author)
    assert.equal(own.statusCode, 201, own.body)
    const staff = await vote({ object_id: choices.draft[1], value: 5 }, tokens.staff)
    assert.equal(staff.statusCode, 201, staff.body)
    assert.equal((await t.json(`/api/question_choice_votes/?question=${ids.draft}`, auth(tokens.voter))).count, 0)
    assert.equal((await t.json(`/api/question_choice_votes/?question=${ids.draft}`)).count, 0)
    assert.equal(
      (await t.json(`/api/question_choice_votes/?question=${ids.draft}`, auth(tokens.author))).count,
      2,
      'the author sees the picks on their own question',
    )
    assert.equal((await t.json(`/api/question_choice_votes/?question=${ids.draft}`, auth(tokens.staff))).count, 2)
    assert.equal((await t.get(`/api/question_choice_votes/${own.json().id}/`, auth(tokens.voter))).statusCode, 404)
    await assertStoredEqualsRecomputed(t.database.db, 'after picks on a draft')
  })
})

describe('changing and withdrawing a pick', () => {
  const path = (id: number) => `/api/question_choice_votes/${id}/`
  let mine: number
  let others: number

  before(async () => {
    mine = (await vote({ object_id: choices.edits[0], value: 5, private: false }, tokens.voter)).json().id
    others = (await vote({ object_id: choices.edits[1], value: 5, private: false }, tokens.other)).json().id
  })

  test('the voter may PATCH privacy and collection: no new answer, the counts stay', async () => {
    const historyBefore = await t.database.db
      .selectFrom('question_choice_vote_history')
      .select('id')
      .where('question_id', '=', ids.edits)
      .execute()
    const response = await t.send('PATCH', path(mine), { private: true, collection: ids.collection }, tokens.voter)
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual([response.json().private, response.json().collection, response.json().value], [true, ids.collection, 5])
    assert.deepEqual(await choiceCounts(ids.edits, choices.edits[0]), expected({ 5: 1 }))
    const historyAfter = await t.database.db
      .selectFrom('question_choice_vote_history')
      .select('id')
      .where('question_id', '=', ids.edits)
      .execute()
    assert.equal(historyAfter.length, historyBefore.length)
    const q = await question(ids.edits, tokens.voter)
    assert.equal(q.my_vote[0].private, true)
  })

  test('the voter may PATCH the value (a form too): the earlier answer goes to the history and the counts move', async () => {
    const response = await form('PATCH', path(mine), { value: '2' }, tokens.voter)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.json().value, 2)
    assert.equal(response.json().object_id, choices.edits[0], 'an edit keeps the choice')
    assert.deepEqual(await choiceCounts(ids.edits, choices.edits[0]), expected({ 2: 1 }))
    const skipped = await t.send('PATCH', path(mine), { value: null }, tokens.voter)
    assert.equal(skipped.statusCode, 200, skipped.body)
    assert.deepEqual([skipped.json().value, skipped.json().skipped], [null, true])
    assert.deepEqual(await choiceCounts(ids.edits, choices.edits[0]), expected({}, 1))
    const unskipped = await t.send('PATCH', path(mine), { skipped: false }, tokens.voter)
    assert.equal(unskipped.statusCode, 400, 'un-skipping needs a value')
    assert.deepEqual(unskipped.json(), { value: ['This field is required.'] })
    const back = await t.send('PATCH', path(mine), { value: 5 }, tokens.voter)
    assert.equal(back.json().value, 5)
    const history = await t.database.db
      .selectFrom('question_choice_vote_history')
      .select(['value', 'skipped'])
      .where('user_id', '=', ids.voter)
      .where('question_id', '=', ids.edits)
      .orderBy('id')
      .execute()
    assert.deepEqual(history, [
      { value: 5, skipped: false },
      { value: 2, skipped: false },
      { value: null, skipped: true },
    ])
    await assertStoredEqualsRecomputed(t.database.db, 'after edits')
  })

  test('a bad PATCH is 400 naming the field', async () => {
    const before = await voteState(t.database.db)
    const high = await t.send('PATCH', path(mine), { value: 7 }, tokens.voter)
    assert.deepEqual([high.statusCode, high.json()], [400, { value: ['Ensure this value is less than or equal to 5.'] }])
    const collection = await t.send('PATCH', path(mine), { collection: 765432 }, tokens.voter)
    assert.deepEqual([collection.statusCode, collection.json()], [400, { collection: ['Invalid pk "765432" - object does not exist.'] }])
    assert.equal(await voteState(t.database.db), before)
  })

  test('strangers get 403 on a public pick and 404 on a private one; nothing changes', async () => {
    const before = await voteState(t.database.db)
    const patch = await t.send('PATCH', path(others), { value: 1 }, tokens.stranger)
    assert.equal(patch.statusCode, 403)
    assert.deepEqual(patch.json(), { detail: 'You do not have permission to perform this action.' })
    const del = await t.send('DELETE', path(others), undefined, tokens.stranger)
    assert.equal(del.statusCode, 403)
    const anonymous = await t.send('DELETE', path(others))
    assert.deepEqual([anonymous.statusCode, anonymous.json()], [403, { detail: 'Authentication credentials were not provided.' }])
    // `mine` is private since the first PATCH: strangers cannot see it at all.
    assert.equal((await t.send('PATCH', path(mine), { value: 1 }, tokens.stranger)).statusCode, 404)
    assert.equal((await t.send('DELETE', path(mine), undefined, tokens.stranger)).statusCode, 404)
    assert.equal((await t.send('DELETE', path(987654), undefined, tokens.voter)).statusCode, 404)
    assert.equal(await voteState(t.database.db), before)
  })

  test('staff may PATCH and DELETE anyone’s pick', async () => {
    const patched = await t.send('PATCH', path(others), { value: 3 }, tokens.staff)
    assert.equal(patched.statusCode, 200, patched.body)
    assert.deepEqual([patched.json().value, patched.json().user], [3, ids.other], 'the pick stays the voter’s')
    assert.deepEqual(await choiceCounts(ids.edits, choices.edits[1]), expected({ 3: 1 }))
    const deleted = await t.send('DELETE', path(others), undefined, tokens.staff)
    assert.equal(deleted.statusCode, 204)
    assert.equal(deleted.body, '')
    assert.deepEqual(await choiceCounts(ids.edits, choices.edits[1]), expected({}))
    assert.deepEqual((await question(ids.edits, tokens.other)).my_vote, [])
  })

  test('the voter may DELETE (on the light URL too): 204, the pick leaves the counts and stays in the history', async () => {
    const usersBefore = await t.json(`/api/users/${ids.voter}/`, auth(tokens.voter))
    const response = await t.send('DELETE', `/api/question_choice_votes_light/${mine}/`, undefined, tokens.voter)
    assert.equal(response.statusCode, 204)
    assert.equal((await t.get(path(mine), auth(tokens.voter))).statusCode, 404)
    assert.deepEqual(await choiceCounts(ids.edits, choices.edits[0]), expected({}))
    assert.deepEqual((await question(ids.edits, tokens.voter)).my_vote, [])
    const last = await t.database.db
      .selectFrom('question_choice_vote_history')
      .selectAll()
      .where('user_id', '=', ids.voter)
      .where('question_id', '=', ids.edits)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow()
    assert.deepEqual([last.choice_id, last.value], [choices.edits[0], 5])
    const usersAfter = await t.json(`/api/users/${ids.voter}/`, auth(tokens.voter))
    assert.equal(usersAfter.count_choice_votes, usersBefore.count_choice_votes - 1)
    assert.equal((await t.send('DELETE', path(mine), undefined, tokens.voter)).statusCode, 404, 'gone')
    const again = await vote({ object_id: choices.edits[2], value: 5 }, tokens.voter)
    assert.equal(again.statusCode, 201, 'after a withdrawal the next pick is a new one')
    await assertStoredEqualsRecomputed(t.database.db, 'after withdrawals')
  })

  test('once the window closes: no new value and no withdrawal (400), privacy still changes', async () => {
    const pick = (await vote({ object_id: choices.closing[2], value: 5 }, tokens.voter)).json()
    await t.database.db
      .updateTable('questions')
      .set({ end_at: new Date('2001-01-01T00:00:00Z') })
      .where('id', '=', ids.closing)
      .execute()
    const before = await voteState(t.database.db)
    const value = await t.send('PATCH', path(pick.id), { value: 1 }, tokens.voter)
    assert.deepEqual([value.statusCode, value.json()], [400, { value: ['Voting on this question is closed.'] }])
    const withdraw = await t.send('DELETE', path(pick.id), undefined, tokens.voter)
    assert.deepEqual([withdraw.statusCode, withdraw.json()], [400, { non_field_errors: ['Voting on this question is closed.'] }])
    const replace = await vote({ object_id: choices.closing[0], value: 5 }, tokens.voter)
    assert.deepEqual([replace.statusCode, replace.json()], [400, { object_id: ['Voting on this question is closed.'] }])
    assert.equal(await voteState(t.database.db), before)
    const privacy = await t.send('PATCH', path(pick.id), { private: true }, tokens.voter)
    assert.equal(privacy.statusCode, 200, privacy.body)
    assert.deepEqual([privacy.json().private, privacy.json().value], [true, 5])
    assert.deepEqual(await choiceCounts(ids.closing, choices.closing[2]), expected({ 5: 1 }))
  })
})

describe('the listing', () => {
  const listed: Record<string, number> = {}
  const list = async (query: string, token?: string) => t.json(`/api/question_choice_votes/?question=${ids.listed}${query}`, auth(token))
  const idsOf = (page: { results: { id: number }[] }) => page.results.map((r) => r.id)

  before(async () => {
    const [a, b] = choices.listed
    listed.voter = (await vote({ object_id: a, value: 5, private: false }, tokens.voter)).json().id
    listed.other = (await vote({ object_id: b, value: 3, private: false }, tokens.other)).json().id
    listed.shy = (await vote({ object_id: b, value: 4 }, tokens.shy)).json().id // private by default
    listed.author = (await vote({ object_id: a, value: null, private: false }, tokens.author)).json().id
  })

  test('anyone sees public picks; the voter also their private ones; staff all', async () => {
    assert.deepEqual(idsOf(await list('')).sort(), [listed.voter, listed.other, listed.author].sort())
    assert.equal((await list('', tokens.stranger)).count, 3)
    assert.equal((await list('', tokens.shy)).count, 4)
    assert.equal((await list('', tokens.staff)).count, 4)
    assert.equal((await t.get(`/api/question_choice_votes/${listed.shy}/`)).statusCode, 404)
    assert.equal((await t.get(`/api/question_choice_votes/${listed.shy}/`, auth(tokens.shy))).statusCode, 200)
    assert.equal((await t.get(`/api/question_choice_votes/${listed.shy}/`, auth(tokens.staff))).statusCode, 200)
  })

  test('filters: object_id and choice (the chosen choice), question, user', async () => {
    const [a, b] = choices.listed
    assert.deepEqual(
      idsOf(await t.json(`/api/question_choice_votes/?object_id=${b}`, auth(tokens.staff))).sort(),
      [listed.other, listed.shy].sort(),
    )
    assert.deepEqual(idsOf(await t.json(`/api/question_choice_votes/?choice=${a}`)).sort(), [listed.voter, listed.author].sort())
    assert.deepEqual(idsOf(await list(`&user=${ids.other}`)), [listed.other])
    assert.deepEqual(idsOf(await list(`&user=${ids.shy}`)), [], 'a private pick is not listed for others')
    const everything = await t.json(`/api/question_choice_votes/?user=${ids.voter}`, auth(tokens.voter))
    assert.ok(everything.results.every((r: { user: number }) => r.user === ids.voter))
    assert.ok(everything.count >= 4, 'the voter’s picks on several questions')
    assert.equal((await t.json(`/api/question_choice_votes/?choice=${a}&user=${ids.other}`)).count, 0, 'filters combine')
    const bad = await t.get('/api/question_choice_votes/?question=abc')
    assert.deepEqual([bad.statusCode, bad.json()], [400, { question: ['Enter a whole number.'] }])
  })

  test('ordering: newest first by default; by value, user, choice, question, ids and times; unknown names fall back', async () => {
    const all = [listed.voter, listed.other, listed.shy, listed.author]
    const staffList = (ordering: string) => list(`&ordering=${ordering}`, tokens.staff).then(idsOf)
    assert.deepEqual(await list('', tokens.staff).then(idsOf), [...all].reverse(), '-created_at by default')
    assert.deepEqual(await staffList('created_at'), all)
    assert.deepEqual(await staffList('id'), all)
    assert.deepEqual(await staffList('-id'), [...all].reverse())
    assert.deepEqual(await staffList('modified_at'), all)
    // Values 5, 3, 4 and a skip (null sorts last ascending in PostgreSQL).
    assert.deepEqual(await staffList('value'), [listed.other, listed.shy, listed.voter, listed.author])
    const byUser = [...all].sort((x, y) => ownerOf(x) - ownerOf(y))
    assert.deepEqual(await staffList('user'), byUser)
    assert.deepEqual(await staffList('-user'), [...byUser].reverse())
    // Two picks per choice, ties broken by id in the direction of the last term.
    const [a, b] = choices.listed
    assert.ok(a < b)
    assert.deepEqual(await staffList('choice'), [listed.voter, listed.author, listed.other, listed.shy])
    assert.deepEqual(await staffList('object_id'), [listed.voter, listed.author, listed.other, listed.shy])
    assert.deepEqual(await staffList('-object_id'), [listed.shy, listed.other, listed.author, listed.voter])
    assert.deepEqual(await staffList('question,-value'), [listed.author, listed.voter, listed.shy, listed.other])
    assert.deepEqual(await staffList('no_such_field'), [...all].reverse())
  })

  function ownerOf(voteId: number): number {
    const name = Object.entries(listed).find(([, id]) => id === voteId)![0]
    return ids[name]
  }

  test('pages carry the envelope; items have the shape of a pick', async () => {
    const page = await t.json(`/api/question_choice_votes/?question=${ids.listed}&page_size=2`, auth(tokens.staff))
    assert.equal(page.count, 4)
    assert.equal(page.results.length, 2)
    assert.match(page.next, /page=2/)
    assert.equal(page.previous, null)
    for (const item of page.results) {
      assert.equal(item.question, ids.listed)
      assert.ok(choices.listed.includes(item.object_id))
      assert.equal(item.url, `http://localhost:80/api/question_choice_votes_light/${item.id}/`)
    }
    await assertStoredEqualsRecomputed(t.database.db, 'after the listing’s picks')
  })
})
