import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
const ids: Record<string, number> = {}
const tokens: Record<string, string> = {}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['dana', 'eli', 'staff']) {
    ids[name] = (await insertUser(db, { is_staff: name === 'staff' })).id
    tokens[name] = await t.tokenFor(ids[name])
  }
  ids.ferry = (await insertQuestion(db, ids.staff, { question: 'Ferries should run at night' })).id
  ids.road = (await insertQuestion(db, ids.staff, { question: 'Roads need fewer lanes' })).id
  const votes = await db
    .insertInto('question_votes')
    .values([
      { question_id: ids.ferry, user_id: ids.dana, value: 5 },
      { question_id: ids.road, user_id: ids.dana, value: 1 },
      { question_id: ids.ferry, user_id: ids.eli, value: 2, private: true },
    ])
    .returning(['id'])
    .execute()
  ;[ids.danaFerry, ids.danaRoad, ids.eliFerry] = votes.map((row) => row.id)
  for (const [who, question, key] of [
    ['dana', ids.ferry, 'night'],
    ['eli', ids.ferry, 'noise'],
    ['dana', ids.road, 'lanes'],
  ] as const) {
    const response = await t.send('POST', '/api/comments/', { text: `About ${key}`, question, subtype: 'reason' }, tokens[who])
    assert.equal(response.statusCode, 201, response.body)
    ids[key] = response.json().id
  }
})
after(() => t.close())

const give = (who: string, body: unknown) => t.send('POST', '/api/vote_comments/', body, tokens[who])
const auth = (who: string) => ({ authorization: `Token ${tokens[who]}` })
const idsOf = (page: any) => page.results.map((item: any) => item.id)

describe('giving a reason', () => {
  test('a comment on the same question as the reason of my answer: 201', async () => {
    const response = await give('dana', { vote: ids.danaFerry, comment: ids.night })
    assert.equal(response.statusCode, 201, response.body)
    const body = response.json()
    assert.deepEqual(Object.keys(body).sort(), ['comment', 'created_at', 'id', 'question', 'url', 'user', 'vote'])
    assert.equal(body.url, `http://localhost:80/api/vote_comments/${body.id}/`)
    assert.equal(response.headers.location, body.url)
    assert.deepEqual([body.vote, body.comment, body.question, body.user], [ids.danaFerry, ids.night, ids.ferry, ids.dana])
    assert.match(body.created_at, TIMESTAMP)
    ids.reason = body.id
  })

  test("someone else's comment may be the reason too; form bodies work", async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/vote_comments/',
      headers: { ...auth('dana'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `vote=${ids.danaFerry}&comment=${ids.noise}`,
    })
    assert.equal(response.statusCode, 201, response.body)
  })

  test('refusals: twice the same pair, another person’s vote, another question, unknown ids, no credentials', async () => {
    const cases: [string, unknown, Record<string, string[]>][] = [
      ['dana', { vote: ids.danaFerry, comment: ids.night }, { non_field_errors: ['The fields vote, comment must make a unique set.'] }],
      ['eli', { vote: ids.danaFerry, comment: ids.noise }, { vote: [`Invalid pk "${ids.danaFerry}" - object does not exist.`] }],
      ['dana', { vote: ids.danaFerry, comment: ids.lanes }, { comment: ['The comment is on another question than the vote.'] }],
      ['dana', { vote: ids.danaFerry, comment: 999999 }, { comment: ['Invalid pk "999999" - object does not exist.'] }],
      ['dana', { vote: ids.danaFerry }, { comment: ['This field is required.'] }],
      ['dana', { vote: true, comment: ids.night }, { vote: ['A valid integer is required.'] }],
      ['dana', { vote: ids.danaFerry, comment: null }, { comment: ['This field may not be null.'] }],
      [
        'dana',
        { vote: [ids.danaFerry], comment: { id: ids.night } },
        { vote: ['A valid integer is required.'], comment: ['A valid integer is required.'] },
      ],
    ]
    for (const [who, body, errors] of cases) {
      const response = await give(who, body)
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.deepEqual(response.json(), errors)
    }
    assert.equal((await t.send('POST', '/api/vote_comments/', { vote: ids.danaFerry, comment: ids.night })).statusCode, 403)
  })
})

describe('listing reasons', () => {
  before(async () => {
    assert.equal((await give('dana', { vote: ids.danaRoad, comment: ids.lanes })).statusCode, 201)
    assert.equal((await give('eli', { vote: ids.eliFerry, comment: ids.noise })).statusCode, 201)
  })

  test('filters: vote, comment, question, user', async () => {
    const pairs = (page: any) => page.results.map((r: any) => [r.vote, r.comment])
    assert.deepEqual(pairs(await t.json(`/api/vote_comments/?vote=${ids.danaFerry}`)), [
      [ids.danaFerry, ids.night],
      [ids.danaFerry, ids.noise],
    ])
    assert.deepEqual(pairs(await t.json(`/api/vote_comments/?comment=${ids.lanes}`)), [[ids.danaRoad, ids.lanes]])
    assert.deepEqual(pairs(await t.json(`/api/vote_comments/?question=${ids.road}`)), [[ids.danaRoad, ids.lanes]])
    assert.equal((await t.json(`/api/vote_comments/?user=${ids.dana}`)).count, 3)
    assert.equal((await t.json(`/api/vote_comments/?question=${ids.ferry}&ordering=-id`)).results[0].vote, ids.danaFerry)
  })

  test('reasons of a private answer are seen by whoever answered and staff only', async () => {
    const url = `/api/vote_comments/?vote=${ids.eliFerry}`
    assert.equal((await t.json(url)).count, 0)
    assert.equal((await t.json(url, auth('dana'))).count, 0)
    assert.equal((await t.json(url, auth('eli'))).count, 1)
    assert.equal((await t.json(url, auth('staff'))).count, 1)
    const id = (await t.json(url, auth('eli'))).results[0].id
    assert.equal((await t.get(`/api/vote_comments/${id}/`)).statusCode, 404)
    assert.equal((await t.json(`/api/vote_comments/${id}/`, auth('eli'))).id, id)
    assert.equal(
      (await t.send('DELETE', `/api/vote_comments/${id}/`, undefined, tokens.dana)).statusCode,
      404,
      'not there for others, even to remove',
    )
    assert.equal((await t.json(url, auth('eli'))).count, 1)
  })

  test('a constant number of statements whatever the page size', async () => {
    const small = await t.get('/api/vote_comments/?page_size=1', auth('eli'))
    const large = await t.get('/api/vote_comments/?page_size=100', auth('eli'))
    assert.ok(large.json().results.length > 1)
    assert.equal(large.headers['x-query-count'], small.headers['x-query-count'])
    assert.ok(Number(large.headers['x-query-count']) <= 4, `statements: ${large.headers['x-query-count']}`)
  })

  test('the reasons of a hidden comment leave the listing but for its author and staff', async () => {
    const url = `/api/vote_comments/?comment=${ids.night}`
    assert.equal((await t.send('POST', `/api/comments/${ids.night}/hide/`, undefined, tokens.staff)).statusCode, 200)
    assert.equal((await t.json(url)).count, 0)
    assert.equal((await t.json(url, auth('eli'))).count, 0)
    assert.equal((await t.json(url, auth('dana'))).count, 1)
    assert.equal((await t.json(url, auth('staff'))).count, 1)
    const refused = await give('eli', { vote: ids.eliFerry, comment: ids.night })
    assert.deepEqual([refused.statusCode, refused.json()], [400, { comment: [`Invalid pk "${ids.night}" - object does not exist.`] }])
    assert.equal((await t.send('POST', `/api/comments/${ids.night}/unhide/`, undefined, tokens.staff)).statusCode, 200)
    assert.equal((await t.json(url)).count, 1)
  })

  test('the detail equals the listed item', async () => {
    const listed = (await t.json(`/api/vote_comments/?id=${ids.reason}`)).results[0]
    assert.deepEqual(await t.json(`/api/vote_comments/${ids.reason}/`), listed)
    assert.equal((await t.get('/api/vote_comments/999999/')).statusCode, 404)
  })
})

describe('removing a reason', () => {
  test('whoever answered removes it; others are refused', async () => {
    const url = `/api/vote_comments/${ids.reason}/`
    assert.equal((await t.send('DELETE', url)).statusCode, 403)
    assert.equal((await t.send('DELETE', url, undefined, tokens.eli)).statusCode, 403)
    assert.equal((await t.send('DELETE', url, undefined, tokens.dana)).statusCode, 204)
    assert.equal((await t.get(url)).statusCode, 404)
    assert.ok(!idsOf(await t.json(`/api/vote_comments/?vote=${ids.danaFerry}`)).includes(ids.reason))
    assert.equal((await t.send('DELETE', url, undefined, tokens.dana)).statusCode, 404)
  })

  test('a removed comment takes its reasons with it', async () => {
    assert.equal((await t.send('DELETE', `/api/comments/${ids.lanes}/`, undefined, tokens.dana)).statusCode, 204)
    assert.equal((await t.json(`/api/vote_comments/?question=${ids.road}`)).count, 0)
  })
})
