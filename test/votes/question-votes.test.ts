import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertRefused, assertStoredEqualsRecomputed, likertQuestion, mcqQuestion, voteState } from './support.ts'

let t: TestApp
const ids: Record<string, number> = {}
const tokens: Record<string, string> = {}

before(async () => {
  // Arithmetic on tiny questions: every private answer counts in the figures (docs/statistics.md).
  t = await createTestApp('tiny', { MIN_CELL_SIZE: '1' })
  const db = t.database.db
  const author = await insertUser(db)
  const voter = await insertUser(db)
  const shy = await insertUser(db, { default_private: true })
  const other = await insertUser(db)
  const staff = await insertUser(db, { is_staff: true })
  Object.assign(ids, { author: author.id, voter: voter.id, shy: shy.id, other: other.id, staff: staff.id })
  for (const [name, id] of Object.entries(ids)) tokens[name] = await t.tokenFor(id)
  const tag = await insertTag(db)
  ids.tag = tag.id
  ids.open = (await likertQuestion(db, author.id, { topic_id: tag.id })).id
  ids.second = (await likertQuestion(db, author.id)).id
  ids.draft = (await likertQuestion(db, author.id, { publish: false })).id
  ids.closed = (
    await likertQuestion(db, author.id, { start_at: new Date('2020-01-01T00:00:00Z'), end_at: new Date('2021-01-01T00:00:00Z') })
  ).id
  ids.future = (await likertQuestion(db, author.id, { start_at: new Date('2999-01-01T00:00:00Z') })).id
  const mcq = await mcqQuestion(db, author.id)
  ids.mcq = mcq.id
  const collection = await db
    .insertInto('question_collections')
    .values({ user_id: author.id, name: 'Survey' })
    .returning('id')
    .executeTakeFirstOrThrow()
  ids.collection = collection.id
})
after(() => t.close())

const question = (id: number, token?: string) => t.json(`/api/questions/${id}/`, token ? { authorization: `Token ${token}` } : {})
const form = (url: string, fields: Record<string, string>, token: string) =>
  t.request({
    method: 'POST',
    url,
    headers: { authorization: `Token ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  })

describe('the clients’ bodies', () => {
  test('the old web app: JSON {value, object_id, private}; 201 with the vote', async () => {
    const response = await t.send('POST', '/api/question_votes/', { value: 4, object_id: ids.open, private: false }, tokens.voter)
    assert.equal(response.statusCode, 201, response.body)
    const vote = response.json()
    assert.deepEqual(Object.keys(vote).sort(), [
      'collection',
      'created_at',
      'id',
      'importance',
      'modified_at',
      'object_id',
      'private',
      'skipped',
      'url',
      'user',
      'value',
    ])
    assert.equal(vote.object_id, ids.open)
    assert.equal(vote.value, 4)
    assert.equal(vote.skipped, false)
    assert.equal(vote.private, false)
    assert.equal(vote.user, ids.voter)
    assert.equal(vote.url, `http://localhost:80/api/question_votes_light/${vote.id}/`)
    assert.match(vote.created_at, TIMESTAMP)
    assert.equal(vote.created_at, vote.modified_at)
    const q = await question(ids.open, tokens.voter)
    assert.equal(q.direct_high, 1)
    assert.equal(q.liquid_high, 1)
    assert.equal(q.direct_vote_count, 1)
    assert.equal(q.my_vote.length, 1)
    assert.equal(q.my_vote[0].value, 4)
    assert.equal(q.my_vote[0].object_id, ids.open)
    assert.equal(q.my_vote[0].private, false)
    assert.equal(q.my_vote[0].modified_at, vote.modified_at)
  })

  test('the web app: collection and analytics; a second answer replaces the first (200) and keeps it in the history', async () => {
    const body = {
      object_id: ids.open,
      value: 2,
      collection: ids.collection,
      private: true,
      analytics_interface: 'collection',
      analytics_os: 'Linux',
      analytics_browser: 'Firefox',
      analytics_parent_url: `https://example.org/${'x'.repeat(3000)}`,
      analytics_location: '51.5,-0.12,20',
    }
    const response = await t.send('POST', '/api/question_votes/', body, tokens.voter)
    assert.equal(response.statusCode, 200, response.body)
    const vote = response.json()
    assert.equal(vote.value, 2)
    assert.equal(vote.collection, ids.collection)
    assert.equal(vote.private, true)
    assert.equal('analytics_os' in vote, false, 'analytics are stored, never shown')
    const row = await t.database.db.selectFrom('question_votes').selectAll().where('id', '=', vote.id).executeTakeFirstOrThrow()
    assert.equal(row.analytics_interface, 'collection')
    assert.equal(row.analytics_location, '51.5,-0.12,20')
    assert.equal(row.analytics_parent_url!.length, 1000, 'over-long analytics strings are cut')
    const history = await t.database.db.selectFrom('question_vote_history').selectAll().where('user_id', '=', ids.voter).execute()
    assert.equal(history.length, 1)
    assert.equal(history[0].value, 4)
    const q = await question(ids.open, tokens.voter)
    assert.equal(q.direct_high, 0)
    assert.equal(q.direct_low, 1)
    assert.equal(q.direct_vote_count, 1)
    assert.deepEqual([q.my_vote[0].value, q.my_vote[0].private], [2, true])
  })

  test('the chatbot: a form with object_id and value as strings', async () => {
    const response = await form('/api/question_votes/', { object_id: String(ids.open), value: '5' }, tokens.other)
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().value, 5)
    const again = await form('/api/question_votes/', { object_id: String(ids.open), value: '1', private: 'on' }, tokens.other)
    assert.equal(again.statusCode, 200, again.body)
    assert.deepEqual([again.json().value, again.json().private], [1, true])
    await assertStoredEqualsRecomputed(t.database.db, 'after the client bodies')
  })

  test('both URLs serve the same resource', async () => {
    const response = await t.send('POST', '/api/question_votes_light/', { object_id: ids.second, value: 3 }, tokens.voter)
    assert.equal(response.statusCode, 201)
    const id = response.json().id
    assert.deepEqual((await t.json(`/api/question_votes/${id}/`)).id, id)
    assert.deepEqual((await t.json(`/api/question_votes_light/${id}/`)).id, id)
  })
})

describe('skips, privacy and importance', () => {
  test('value null is a skip, as is skipped true without a value; skips count only in skipped', async () => {
    const skip = await t.send('POST', '/api/question_votes/', { object_id: ids.second, value: null }, tokens.other)
    assert.equal(skip.statusCode, 201, skip.body)
    assert.deepEqual([skip.json().value, skip.json().skipped], [null, true])
    const alsoSkip = await t.send('POST', '/api/question_votes/', { object_id: ids.second, skipped: true }, tokens.author)
    assert.equal(alsoSkip.statusCode, 201, alsoSkip.body)
    assert.equal(alsoSkip.json().skipped, true)
    const formSkip = await form('/api/question_votes/', { object_id: String(ids.second), value: '' }, tokens.staff)
    assert.equal(formSkip.statusCode, 201, formSkip.body)
    assert.equal(formSkip.json().skipped, true)
    const q = await question(ids.second)
    assert.equal(q.direct_skipped, 3)
    assert.equal(q.liquid_skipped, 3)
    assert.equal(q.direct_vote_count, 1, 'only the answer of 3 counts')
    assert.equal(q.direct_value, 3)
  })

  test('private defaults to the voter’s own default when absent', async () => {
    const response = await t.send('POST', '/api/question_votes/', { object_id: ids.second, value: 5 }, tokens.shy)
    assert.equal(response.json().private, true)
    const explicit = await t.send('POST', '/api/question_votes/', { object_id: ids.second, value: 5, private: false }, tokens.shy)
    assert.equal(explicit.json().private, false)
    const nulled = await t.send('POST', '/api/question_votes/', { object_id: ids.second, value: 5, private: null }, tokens.shy)
    assert.equal(nulled.json().private, true, 'null reads as absent')
  })

  test('importance 1..5 is kept by a new answer that does not give it; my_importance shows it', async () => {
    await t.send('POST', '/api/question_votes/', { object_id: ids.second, value: 4, importance: 5 }, tokens.shy)
    const again = await t.send('POST', '/api/question_votes/', { object_id: ids.second, value: 2 }, tokens.shy)
    assert.equal(again.json().importance, 5)
    const q = await question(ids.second, tokens.shy)
    assert.equal(q.my_importance[0].value, 5)
    const bad = await t.send('POST', '/api/question_votes/', { object_id: ids.second, value: 2, importance: 9 }, tokens.shy)
    assert.equal(bad.statusCode, 400)
    assert.deepEqual(bad.json(), { importance: ['Ensure this value is less than or equal to 5.'] })
  })
})

describe('refusals: 400 naming the field, and nothing changes', () => {
  const cases: [string, () => Record<string, unknown>, string, Record<string, string[]> | null][] = [
    ['value above 5', () => ({ object_id: ids.open, value: 6 }), 'voter', { value: ['Ensure this value is less than or equal to 5.'] }],
    ['value below 1', () => ({ object_id: ids.open, value: 0 }), 'voter', { value: ['Ensure this value is greater than or equal to 1.'] }],
    ['value not a number', () => ({ object_id: ids.open, value: 'lots' }), 'voter', { value: ['A valid integer is required.'] }],
    ['value with a fraction', () => ({ object_id: ids.open, value: 3.5 }), 'voter', { value: ['A valid integer is required.'] }],
    ['no value and no skip', () => ({ object_id: ids.open }), 'voter', { value: ['This field is required.'] }],
    [
      'a value that is skipped',
      () => ({ object_id: ids.open, value: 3, skipped: true }),
      'voter',
      { skipped: ['A vote with a value cannot be skipped.'] },
    ],
    ['no question', () => ({ value: 3 }), 'voter', { object_id: ['This field is required.'] }],
    [
      'an unknown question',
      () => ({ object_id: 987654, value: 3 }),
      'voter',
      { object_id: ['Invalid pk "987654" - object does not exist.'] },
    ],
    [
      'a question id no row can have',
      () => ({ object_id: 99999999999, value: 3 }),
      'voter',
      { object_id: ['Invalid pk "99999999999" - object does not exist.'] },
    ],
    ['a negative question id', () => ({ object_id: -4, value: 3 }), 'voter', { object_id: ['Invalid pk "-4" - object does not exist.'] }],
    ['someone else’s unpublished question', () => ({ object_id: ids.draft, value: 3 }), 'voter', null],
    ['a closed question', () => ({ object_id: ids.closed, value: 3 }), 'voter', { object_id: ['Voting on this question is closed.'] }],
    [
      'a question not open yet',
      () => ({ object_id: ids.future, value: 3 }),
      'voter',
      { object_id: ['Voting on this question is not open yet.'] },
    ],
    [
      'a multiple-choice question',
      () => ({ object_id: ids.mcq, value: 3 }),
      'voter',
      { object_id: ['This question is answered by choosing one of its choices: vote on the choice.'] },
    ],
    [
      'an unknown collection',
      () => ({ object_id: ids.open, value: 3, collection: 876543 }),
      'voter',
      { collection: ['Invalid pk "876543" - object does not exist.'] },
    ],
    [
      'importance out of range',
      () => ({ object_id: ids.open, value: 3, importance: 0 }),
      'voter',
      { importance: ['Ensure this value is greater than or equal to 1.'] },
    ],
  ]
  for (const [label, body, who, expected] of cases) {
    test(label, () =>
      assertRefused(
        t.database.db,
        () => t.send('POST', '/api/question_votes/', body(), tokens[who]),
        expected ?? { object_id: [`Invalid pk "${ids.draft}" - object does not exist.`] },
      ),
    )
  }

  test('without credentials: 403; malformed JSON and a list body: 400; nothing changes', async () => {
    const before = await voteState(t.database.db)
    assert.equal((await t.send('POST', '/api/question_votes/', { object_id: ids.open, value: 3 })).statusCode, 403)
    const malformed = await t.request({
      method: 'POST',
      url: '/api/question_votes/',
      headers: { authorization: `Token ${tokens.voter}`, 'content-type': 'application/json' },
      payload: '{"object_id": ',
    })
    assert.equal(malformed.statusCode, 400)
    assert.match(malformed.json().detail, /^JSON parse error/)
    const list = await t.send('POST', '/api/question_votes/', [1, 2], tokens.voter)
    assert.equal(list.statusCode, 400)
    assert.ok(list.json().non_field_errors)
    assert.equal(await voteState(t.database.db), before)
  })

  test('the author (and staff) may answer an unpublished question; others see nothing of it', async () => {
    assert.equal((await t.send('POST', '/api/question_votes/', { object_id: ids.draft, value: 3 }, tokens.author)).statusCode, 201)
    assert.equal((await t.send('POST', '/api/question_votes/', { object_id: ids.draft, value: 4 }, tokens.staff)).statusCode, 201)
    const listed = await t.json(`/api/question_votes/?question=${ids.draft}`, { authorization: `Token ${tokens.voter}` })
    assert.equal(listed.count, 0)
    await assertStoredEqualsRecomputed(t.database.db, 'after votes on a draft')
  })
})
