import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { assertFullUserShape, TIMESTAMP } from '../helpers/shapes.ts'
import { assertCountersMatchRows, userCounters } from './fixtures.ts'

let t: TestApp
const ids: Record<string, number> = {}
const tokens: Record<string, string> = {}

before(async () => {
  t = await createTestApp('tiny')
  const db = t.database.db
  for (const name of ['author', 'ann', 'ben', 'cat', 'staff']) {
    ids[name] = (await insertUser(db, { is_staff: name === 'staff' })).id
    tokens[name] = await t.tokenFor(ids[name])
  }
  ids.question = (await insertQuestion(db, ids.author, { question: 'Trams for every town' })).id
  for (const name of ['first', 'second', 'third']) {
    const response = await t.send('POST', '/api/comments/', { text: `The ${name} comment`, question: ids.question }, tokens.author)
    assert.equal(response.statusCode, 201, response.body)
    ids[name] = response.json().id
  }
})
after(() => t.close())

const vote = (who: string, body: unknown) => t.send('POST', '/api/comment_votes/', body, tokens[who])
const auth = (who: string) => ({ authorization: `Token ${tokens[who]}` })
const idsOf = (page: any) => page.results.map((item: any) => item.id)

describe('voting on a comment', () => {
  test('an up vote: 201 with the fields of spec 2.10, the full voter, and the comment tallies', async () => {
    const response = await vote('ann', { object_id: ids.first, value: 5 })
    assert.equal(response.statusCode, 201, response.body)
    const body = response.json()
    assert.deepEqual(Object.keys(body).sort(), [
      'active',
      'created_at',
      'direct_maximum',
      'direct_minimum',
      'id',
      'modified_at',
      'object_id',
      'private',
      'url',
      'user',
      'value',
    ])
    assert.equal(body.url, `http://localhost:80/api/comment_votes/${body.id}/`)
    assert.equal(response.headers.location, body.url)
    assert.equal(body.value, 5)
    assert.equal(body.object_id, ids.first)
    assert.equal(body.private, false)
    assert.equal(body.active, true)
    assert.match(body.created_at, TIMESTAMP)
    assert.match(body.modified_at, TIMESTAMP)
    assert.equal(body.user.id, ids.ann)
    assertFullUserShape(body.user)
    assert.equal(body.direct_maximum, 1)
    assert.equal(body.direct_minimum, 0)
    assert.equal(body.user.count_comment_votes, 1, 'the embedded voter already counts the vote')
    const comment = await t.json(`/api/comments/${ids.first}/`, auth('ann'))
    assert.equal(comment.direct_maximum, 1)
    assert.equal(comment.my_vote[0].id, body.id)
    assert.equal(comment.my_vote[0].value, 5)
  })

  test('the same vote again answers 200 and adds nothing', async () => {
    const response = await vote('ann', { object_id: ids.first, value: 5 })
    assert.equal(response.statusCode, 200)
    assert.equal(response.json().direct_maximum, 1)
    assert.equal((await t.json(`/api/comment_votes/?object_id=${ids.first}&user=${ids.ann}`)).count, 1)
  })

  test('a new value supersedes the earlier vote, which stays with active false (spec 3)', async () => {
    const before = await userCounters(t.database.db, ids.ann)
    const response = await vote('ann', { object_id: ids.first, value: 1 })
    assert.equal(response.statusCode, 201)
    assert.equal(response.json().direct_maximum, 0)
    assert.equal(response.json().direct_minimum, 1)
    const history = await t.json(`/api/comment_votes/?object_id=${ids.first}&user=${ids.ann}&ordering=id`)
    assert.deepEqual(
      history.results.map((v: any) => [v.value, v.active]),
      [
        [5, false],
        [1, true],
      ],
    )
    assert.deepEqual(await userCounters(t.database.db, ids.ann), before, 'still one vote of hers counts')
    const comment = await t.json(`/api/comments/${ids.first}/`, auth('ann'))
    assert.deepEqual([comment.my_vote.length, comment.my_vote[0].value], [1, 1])
  })

  test('form-encoded bodies with strings; private as "1"', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/comment_votes/',
      headers: { ...auth('ben'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `object_id=${ids.first}&value=5&private=1`,
    })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().private, true)
    assert.equal(response.json().direct_maximum, 0, 'one private vote: the tallies are those of the public votes')
  })

  test('bad input answers 400 naming the field and changes nothing', async () => {
    const before = await userCounters(t.database.db, ids.cat)
    const cases: [unknown, Record<string, string[]>, string?][] = [
      [{ object_id: ids.first, value: 3 }, { value: ['"3" is not a valid choice.'] }],
      [{ object_id: ids.first }, { value: ['This field is required.'] }],
      [{ object_id: 999999, value: 5 }, { object_id: ['Invalid pk "999999" - object does not exist.'] }],
      [{ object_id: 'abc', value: 5 }, { object_id: ['A valid integer is required.'] }],
      [{ object_id: ids.first, value: 5, private: 'perhaps' }, { private: ['Must be a valid boolean.'] }],
      [{ object_id: ids.second, value: 5 }, { object_id: ['You cannot vote on your own comment.'] }, 'author'],
      // JSON values of the wrong type are refused, never read as an id or a value: true is not 1 (a down vote).
      [{ object_id: ids.first, value: true }, { value: ['A valid integer is required.'] }],
      [{ object_id: true, value: 5 }, { object_id: ['A valid integer is required.'] }],
      [{ object_id: ids.first, value: [5] }, { value: ['A valid integer is required.'] }],
      [{ object_id: ids.first, value: null }, { value: ['This field may not be null.'] }],
      [{ object_id: null, value: 5 }, { object_id: ['This field may not be null.'] }],
      [{ object_id: ids.first, value: '5.5' }, { value: ['"5.5" is not a valid choice.'] }],
      [{ object_id: ids.first, value: 5, private: [true] }, { private: ['Must be a valid boolean.'] }],
      [
        { object_id: 'abc', value: 2 },
        { object_id: ['A valid integer is required.'], value: ['"2" is not a valid choice.'] },
      ],
      [{}, { object_id: ['This field is required.'], value: ['This field is required.'] }],
    ]
    for (const [body, errors, who] of cases) {
      const response = await vote(who ?? 'cat', body)
      assert.equal(response.statusCode, 400, JSON.stringify(body))
      assert.deepEqual(response.json(), errors)
    }
    assert.equal((await t.send('POST', '/api/comment_votes/', { object_id: ids.first, value: 5 })).statusCode, 403)
    assert.deepEqual(await userCounters(t.database.db, ids.cat), before)
    assert.equal((await t.json(`/api/comment_votes/?user=${ids.cat}`, auth('cat'))).count, 0, 'no vote was stored')
  })

  test("without private, a first vote takes the voter's default privacy and a later one keeps the earlier one's", async () => {
    const shy = await insertUser(t.database.db, { default_private: true })
    const token = await t.tokenFor(shy.id)
    const target = await t.send('POST', '/api/comments/', { text: 'Trams are quiet', question: ids.question }, tokens.author)
    assert.equal(target.statusCode, 201, target.body)
    const commentId = target.json().id
    const first = await t.send('POST', '/api/comment_votes/', { object_id: commentId, value: 5 }, token)
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.json().private, true)
    const changed = await t.send('POST', '/api/comment_votes/', { object_id: commentId, value: 1, private: null }, token)
    assert.equal(changed.statusCode, 201, changed.body)
    assert.deepEqual([changed.json().value, changed.json().private], [1, true], 'null reads as absent')
    assert.equal((await t.json(`/api/comment_votes/?user=${shy.id}`)).count, 0, 'others see none of them')
    const form = await t.request({
      method: 'POST',
      url: '/api/comment_votes/',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: `object_id=${commentId}&value=5&private=`,
    })
    assert.equal(form.statusCode, 201, form.body)
    assert.equal(form.json().private, true, 'an empty form field is left out')
    const open = await t.send('POST', '/api/comment_votes/', { object_id: commentId, value: 5, private: false }, token)
    assert.equal(open.statusCode, 201)
    assert.equal(open.json().private, false)
    assert.deepEqual([open.json().direct_maximum, open.json().direct_minimum], [1, 0])
    assert.deepEqual(
      (await t.json(`/api/comment_votes/?user=${shy.id}`)).results.map((v: any) => [v.value, v.active]),
      [[5, true]],
    )
    const history = await t.json(`/api/comment_votes/?user=${shy.id}&ordering=id`, { authorization: `Token ${token}` })
    assert.deepEqual(
      history.results.map((v: any) => [v.value, v.private, v.active]),
      [
        [5, true, false],
        [1, true, false],
        [5, true, false],
        [5, false, true],
      ],
    )
  })
})

describe('the listing and its filters', () => {
  before(async () => {
    for (const [who, comment, value] of [
      ['cat', 'second', 5],
      ['ben', 'second', 1],
      ['ann', 'third', 5],
    ] as const) {
      assert.equal((await vote(who, { object_id: ids[comment], value })).statusCode, 201)
    }
  })

  test('object_id (or comment), user, value, active', async () => {
    const all = await t.json(`/api/comment_votes/?user=${ids.cat}`)
    assert.equal(all.count, 1)
    assert.equal(all.results[0].object_id, ids.second)
    const onSecond = await t.json(`/api/comment_votes/?object_id=${ids.second}&ordering=id`)
    assert.deepEqual(
      onSecond.results.map((v: any) => v.user.id),
      [ids.cat, ids.ben],
    )
    assert.deepEqual(await t.json(`/api/comment_votes/?comment=${ids.second}&ordering=id`), onSecond)
    assert.deepEqual(
      (await t.json(`/api/comment_votes/?object_id=${ids.second}&value=1`)).results.map((v: any) => v.user.id),
      [ids.ben],
    )
    const inactive = await t.json(`/api/comment_votes/?object_id=${ids.first}&active=false`)
    assert.deepEqual(
      inactive.results.map((v: any) => [v.user.id, v.value]),
      [[ids.ann, 5]],
    )
    assert.equal((await t.json(`/api/comment_votes/?object_id=${ids.first}&active=true`, auth('staff'))).count, 2)
    assert.equal((await t.get('/api/comment_votes/?active=sometimes')).statusCode, 400)
  })

  test('ordering by value and created_at; newest first by default', async () => {
    const byValue = await t.json(`/api/comment_votes/?object_id=${ids.second}&ordering=value`)
    assert.deepEqual(
      byValue.results.map((v: any) => v.value),
      [1, 5],
    )
    const byDefault = await t.json(`/api/comment_votes/?object_id=${ids.second}`)
    assert.deepEqual(
      idsOf(byDefault),
      [...idsOf(byValue)].sort((a: number, b: number) => b - a),
    )
  })

  test('a private vote is listed to its voter and staff only, and counts from the MIN_CELL_SIZE-th', async () => {
    const url = `/api/comment_votes/?object_id=${ids.first}&active=true`
    assert.deepEqual(
      (await t.json(url)).results.map((v: any) => v.user.id),
      [ids.ann],
    )
    assert.equal((await t.json(url, auth('ben'))).count, 2)
    assert.equal((await t.json(url, auth('staff'))).count, 2)
    const privateId = (await t.json(`/api/comment_votes/?object_id=${ids.first}&user=${ids.ben}`, auth('ben'))).results[0].id
    assert.equal((await t.get(`/api/comment_votes/${privateId}/`)).statusCode, 404)
    assert.equal((await t.get(`/api/comment_votes/${privateId}/`, auth('cat'))).statusCode, 404)
    assert.equal(
      (await t.send('DELETE', `/api/comment_votes/${privateId}/`, undefined, tokens.cat)).statusCode,
      404,
      'not there for others, even to withdraw',
    )
    assert.equal((await t.json(`/api/comment_votes/${privateId}/`, auth('ben'))).active, true)
    assert.equal((await t.json(`/api/comments/${ids.first}/`)).direct_maximum, 0, 'test/disclosure/comment-votes-attacks.test.ts')
  })

  test('the detail equals the listed item; a constant number of statements per page', async () => {
    const listed = (await t.json(`/api/comment_votes/?user=${ids.cat}`)).results[0]
    assert.deepEqual(await t.json(`/api/comment_votes/${listed.id}/`), listed)
    assert.equal((await t.get('/api/comment_votes/999999/')).statusCode, 404)
    // Areas and politicians of the voters are loaded once a page has some: at most a fixed number of statements.
    const half = await t.get('/api/comment_votes/?page_size=50')
    const large = await t.get('/api/comment_votes/?page_size=100')
    assert.ok(large.json().results.length > 50, 'the seed has comment votes')
    assert.equal(large.headers['x-query-count'], half.headers['x-query-count'])
    assert.ok(Number(large.headers['x-query-count']) <= 8, `statements: ${large.headers['x-query-count']}`)
  })

  test('votes on a hidden comment leave the listing with it', async () => {
    const hidden = await t.send('POST', `/api/comments/${ids.third}/hide/`, {}, tokens.staff)
    assert.equal(hidden.statusCode, 200)
    assert.equal((await t.json(`/api/comment_votes/?object_id=${ids.third}`)).count, 0)
    assert.equal((await t.json(`/api/comment_votes/?object_id=${ids.third}`, auth('staff'))).count, 1)
    const refused = await vote('cat', { object_id: ids.third, value: 5 })
    assert.equal(refused.statusCode, 400, 'a hidden comment is not there to vote on')
    await t.send('POST', `/api/comments/${ids.third}/unhide/`, {}, tokens.staff)
  })
})

describe('withdrawing a vote', () => {
  test('the voter withdraws: active false, the tallies and the counter drop; again changes nothing', async () => {
    const id = (await t.json(`/api/comment_votes/?user=${ids.cat}&active=true`)).results[0].id
    const before = await userCounters(t.database.db, ids.cat)
    assert.equal((await t.send('DELETE', `/api/comment_votes/${id}/`)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/comment_votes/${id}/`, undefined, tokens.ben)).statusCode, 403)
    const response = await t.send('DELETE', `/api/comment_votes/${id}/`, undefined, tokens.cat)
    assert.equal(response.statusCode, 204)
    const withdrawn = await t.json(`/api/comment_votes/${id}/`)
    assert.equal(withdrawn.active, false)
    assert.equal((await t.json(`/api/comments/${ids.second}/`)).direct_maximum, 0)
    assert.equal((await userCounters(t.database.db, ids.cat)).count_comment_votes, before.count_comment_votes - 1)
    assert.equal((await t.send('DELETE', `/api/comment_votes/${id}/`, undefined, tokens.cat)).statusCode, 204)
    assert.equal((await userCounters(t.database.db, ids.cat)).count_comment_votes, before.count_comment_votes - 1)
    assert.equal((await t.send('DELETE', '/api/comment_votes/999999/', undefined, tokens.cat)).statusCode, 404)
  })

  test('voting again after a withdrawal counts again', async () => {
    const response = await vote('cat', { object_id: ids.second, value: 5 })
    assert.equal(response.statusCode, 201)
    assert.equal(response.json().direct_maximum, 1)
    assert.equal(response.json().direct_minimum, 1)
  })

  test('staff may withdraw anyone’s vote', async () => {
    const id = (await t.json(`/api/comment_votes/?user=${ids.ben}&object_id=${ids.second}`)).results[0].id
    assert.equal((await t.send('DELETE', `/api/comment_votes/${id}/`, undefined, tokens.staff)).statusCode, 204)
    assert.equal((await t.json(`/api/comments/${ids.second}/`)).direct_minimum, 0)
  })
})

describe('concurrent votes', () => {
  test('many voters at once: every vote counts exactly once', async () => {
    const voters = await Promise.all(Array.from({ length: 12 }, () => insertUser(t.database.db)))
    const voterTokens = await Promise.all(voters.map((voter) => t.tokenFor(voter.id)))
    const responses = await Promise.all(
      voterTokens.map((token, i) => t.send('POST', '/api/comment_votes/', { object_id: ids.third, value: i % 3 === 0 ? 1 : 5 }, token)),
    )
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      responses.map(() => 201),
    )
    const comment = await t.json(`/api/comments/${ids.third}/`)
    assert.equal(comment.direct_maximum, 1 + 8)
    assert.equal(comment.direct_minimum, 4)
  })

  test('one voter changing their mind quickly keeps exactly one active vote', async () => {
    const responses = await Promise.all([5, 1, 5, 1, 5, 1].map((value) => vote('ben', { object_id: ids.third, value })))
    for (const response of responses) assert.ok([200, 201].includes(response.statusCode), response.body)
    const active = await t.json(`/api/comment_votes/?object_id=${ids.third}&user=${ids.ben}&active=true`)
    assert.equal(active.count, 1)
  })
})

test('after every operation above, stored counters equal the raw rows and the recompute', async () => {
  await assertCountersMatchRows(t.database.db)
})
