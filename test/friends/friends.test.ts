import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertQuestion, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { storedFigureDifferences } from '../../src/engines/figures/check.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const ask = (who: string, whom: unknown) => t.send('POST', '/api/friends/', { friend: whom }, users[who].token)
const act = (who: string, id: number, action: 'accept' | 'decline') =>
  t.send('POST', `/api/friends/${id}/${action}/`, undefined, users[who].token)
const remove = (who: string, id: number) => t.send('DELETE', `/api/friends/${id}/`, undefined, users[who].token)
const list = (who: string, query = '') => t.json(`/api/friends/${query}`, { authorization: `Token ${users[who].token}` })
const countFriends = async (name: string) =>
  (await t.database.db.selectFrom('users').select('count_friends').where('id', '=', users[name].id).executeTakeFirstOrThrow()).count_friends

/** count_friends as recomputeStatistics and `civic-survey check` define it: no stored value differs. */
const assertCountFriendsMatchCheck = async () =>
  assert.deepEqual(await storedFigureDifferences(t.database.db, { users: ['count_friends'] }), [])

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['me', 'ann', 'ben', 'cat', 'dan', 'gone', 'idle']) {
    const row = await insertUser(t.database.db, { username: `fr_${name}` })
    users[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  await t.database.db.updateTable('users').set({ is_deleted: true, is_active: false }).where('id', '=', users.gone.id).execute()
  await t.database.db.updateTable('users').set({ is_active: false }).where('id', '=', users.idle.id).execute()
})
after(() => t.close())

describe('asking, accepting, declining, removing', () => {
  let request: any

  test('POST {friend} answers 201 with a pending request showing both people; no counter moves', async () => {
    const response = await ask('me', users.ann.id)
    assert.equal(response.statusCode, 201, response.body)
    request = response.json()
    assert.deepEqual(Object.keys(request).sort(), ['accepted_at', 'created_at', 'friend', 'id', 'status', 'url', 'user'])
    assert.equal(request.url, `http://localhost:80/api/friends/${request.id}/`)
    assert.equal(request.status, 'pending')
    assert.equal(request.accepted_at, null)
    assert.match(request.created_at, TIMESTAMP)
    assert.deepEqual(Object.keys(request.user).sort(), ['first_name', 'id', 'last_name', 'photo', 'username'])
    assert.equal(request.user.id, users.me.id)
    assert.equal(request.user.username, 'fr_me')
    assert.match(request.user.photo, /^http:\/\/localhost:80\//)
    assert.equal(request.friend.id, users.ann.id)
    assert.equal(await countFriends('me'), 0)
    assert.equal(await countFriends('ann'), 0)
  })

  test('oneself, twice, either way round, nobody, deleted or deactivated, bad values: 400 with the reason', async () => {
    const cases: [string, unknown, Record<string, string[]>][] = [
      ['me', users.me.id, { friend: ['You cannot be friends with yourself.'] }],
      ['me', users.ann.id, { non_field_errors: ['You have asked this user already.'] }],
      ['me', 999999, { friend: ['Invalid pk "999999" - object does not exist.'] }],
      ['me', users.gone.id, { friend: ['This user has deleted their account.'] }],
      ['me', users.idle.id, { friend: ['This user has deactivated their account.'] }],
      ['me', 'abc', { friend: ['A valid integer is required.'] }],
      ['me', -1, { friend: ['Ensure this value is greater than or equal to 0.'] }],
      ['me', 2 ** 40, { friend: ['Ensure this value is less than or equal to 2147483647.'] }],
    ]
    for (const [who, whom, answer] of cases) {
      const response = await ask(who, whom)
      assert.equal(response.statusCode, 400, JSON.stringify(whom))
      assert.deepEqual(response.json(), answer)
    }
    assert.deepEqual((await t.send('POST', '/api/friends/', {}, users.me.token)).json(), { friend: ['This field is required.'] })
    const malformed = await t.request({
      method: 'POST',
      url: '/api/friends/',
      headers: { authorization: `Token ${users.me.token}`, 'content-type': 'application/json' },
      payload: '{"friend": ',
    })
    assert.equal(malformed.statusCode, 400)
    assert.ok(malformed.json().detail)
    assert.equal((await t.send('POST', '/api/friends/', { friend: users.ann.id })).statusCode, 403, 'signed in only')
    assert.equal((await list('me', '?status=pending')).count, 1, 'nothing was added')
  })

  test('only the person asked accepts; twice is fine and counts once', async () => {
    assert.equal((await act('me', request.id, 'accept')).statusCode, 403, 'not the one who asked')
    assert.equal((await act('ben', request.id, 'accept')).statusCode, 403, 'nor a stranger')
    assert.equal((await t.send('POST', `/api/friends/${request.id}/accept/`)).statusCode, 403)
    const accepted = await act('ann', request.id, 'accept')
    assert.equal(accepted.statusCode, 200, accepted.body)
    assert.equal(accepted.json().status, 'accepted')
    assert.match(accepted.json().accepted_at, TIMESTAMP)
    const again = await act('ann', request.id, 'accept')
    assert.equal(again.statusCode, 200)
    assert.equal(again.json().accepted_at, accepted.json().accepted_at)
    assert.equal(await countFriends('me'), 1)
    assert.equal(await countFriends('ann'), 1)
    assert.deepEqual((await ask('ann', users.me.id)).json(), { non_field_errors: ['You are friends already.'] })
    assert.deepEqual((await ask('me', users.ann.id)).json(), { non_field_errors: ['You are friends already.'] })
    assert.deepEqual((await act('ann', request.id, 'decline')).json(), {
      non_field_errors: ['This friendship was accepted already: remove it with DELETE instead.'],
    })
    await assertCountFriendsMatchCheck()
  })

  test('asking someone who asked you accepts their request (200), keeping one row a pair', async () => {
    const theirs = (await ask('ben', users.me.id)).json()
    const response = await ask('me', users.ben.id)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.json().id, theirs.id)
    assert.equal(response.json().status, 'accepted')
    assert.equal(response.json().user.id, users.ben.id)
    assert.equal(await countFriends('me'), 2)
    assert.equal(await countFriends('ben'), 1)
    await assertCountFriendsMatchCheck()
  })

  test('the person asked declines: the request is gone, nothing counted; the asker can ask again', async () => {
    const asked = (await ask('cat', users.me.id)).json()
    assert.equal((await act('cat', asked.id, 'decline')).statusCode, 403, 'the asker cancels with DELETE instead')
    assert.equal((await act('me', asked.id, 'decline')).statusCode, 204)
    assert.equal((await t.get(`/api/friends/${asked.id}/`, { authorization: `Token ${users.me.token}` })).statusCode, 404)
    assert.equal((await act('me', asked.id, 'accept')).statusCode, 404)
    assert.equal(await countFriends('cat'), 0)
    assert.equal((await ask('cat', users.me.id)).statusCode, 201)
  })

  test('GET one: either person and staff; others 403, unknown 404', async () => {
    const staff = await insertUser(t.database.db, { is_staff: true })
    const staffToken = await t.tokenFor(staff.id)
    for (const [token, status] of [
      [users.me.token, 200],
      [users.ann.token, 200],
      [staffToken, 200],
      [users.ben.token, 403],
    ] as const) {
      assert.equal((await t.get(`/api/friends/${request.id}/`, { authorization: `Token ${token}` })).statusCode, status)
    }
    assert.equal((await t.get(`/api/friends/${request.id}/`)).statusCode, 403)
    assert.equal((await t.get('/api/friends/99999999/', { authorization: `Token ${users.me.token}` })).statusCode, 404)
    assert.equal((await t.get('/api/friends/abc/', { authorization: `Token ${users.me.token}` })).statusCode, 404)
  })

  test('either person removes a friendship (counters move back) or cancels a request (they do not)', async () => {
    assert.equal((await remove('ben', request.id)).statusCode, 403)
    assert.equal((await remove('ann', request.id)).statusCode, 204)
    assert.equal((await remove('ann', request.id)).statusCode, 404)
    assert.equal(await countFriends('me'), 1)
    assert.equal(await countFriends('ann'), 0)
    const pending = (await ask('me', users.dan.id)).json()
    assert.equal((await remove('me', pending.id)).statusCode, 204, 'the asker cancels')
    assert.equal(await countFriends('me'), 1)
    assert.equal(await countFriends('dan'), 0)
    await assertCountFriendsMatchCheck()
  })
})

describe('listing', () => {
  test('mine: accepted and pending both ways; status and direction filters', async () => {
    // State now: me-ben accepted (ben asked), cat asked me (pending). Add: me asks dan (pending).
    await ask('me', users.dan.id)
    const mine = await list('me')
    assert.deepEqual(Object.keys(mine).sort(), ['count', 'next', 'next_id', 'previous', 'previous_id', 'results'])
    assert.equal(mine.count, 3)
    const pairs = (page: any) => page.results.map((f: any) => `${f.user.username}>${f.friend.username}:${f.status}`).sort()
    assert.deepEqual(pairs(mine), ['fr_ben>fr_me:accepted', 'fr_cat>fr_me:pending', 'fr_me>fr_dan:pending'])
    assert.deepEqual(pairs(await list('me', '?status=accepted')), ['fr_ben>fr_me:accepted'])
    assert.deepEqual(pairs(await list('me', '?status=pending')), ['fr_cat>fr_me:pending', 'fr_me>fr_dan:pending'])
    assert.deepEqual(pairs(await list('me', '?direction=incoming')), ['fr_ben>fr_me:accepted', 'fr_cat>fr_me:pending'])
    assert.deepEqual(pairs(await list('me', '?direction=outgoing&status=pending')), ['fr_me>fr_dan:pending'])
    assert.deepEqual(pairs(await list('me', `?user=${users.me.id}&status=pending&direction=incoming`)), ['fr_cat>fr_me:pending'])
    const newest = mine.results.map((f: any) => f.created_at)
    assert.deepEqual(newest, [...newest].sort().reverse(), 'newest first by default')
  })

  test("someone else's list: accepted friendships only", async () => {
    const pairs = (page: any) => page.results.map((f: any) => `${f.user.username}>${f.friend.username}`).sort()
    assert.deepEqual(pairs(await list('ann', `?user=${users.me.id}`)), ['fr_ben>fr_me'])
    assert.equal((await list('ann', `?user=${users.me.id}&status=pending`)).count, 0)
    assert.deepEqual(pairs(await list('ann', `?user=${users.ben.id}&direction=outgoing`)), ['fr_ben>fr_me'])
    assert.equal((await list('ann', `?user=${users.dan.id}`)).count, 0, "dan's request from me is pending")
  })

  test('bad filters: 400 naming the field; anonymous: 403', async () => {
    for (const [query, field] of [
      ['?status=maybe', 'status'],
      ['?direction=up', 'direction'],
      ['?user=abc', 'user'],
      ['?user=-3', 'user'],
    ]) {
      const response = await t.get(`/api/friends/${query}`, { authorization: `Token ${users.me.token}` })
      assert.equal(response.statusCode, 400, query)
      assert.ok(response.json()[field], `${query}: ${response.body}`)
    }
    assert.equal((await t.get('/api/friends/')).statusCode, 403)
    assert.equal((await t.get('/api/friends/?page=99', { authorization: `Token ${users.me.token}` })).statusCode, 404)
  })

  test('a constant number of statements a page', async () => {
    for (const name of ['ann', 'ben', 'cat', 'dan']) {
      const extra = await insertUser(t.database.db)
      await t.database.db.insertInto('friendships').values({ user_id: users[name].id, friend_id: extra.id }).execute()
    }
    const extras = await Promise.all(Array.from({ length: 12 }, () => insertUser(t.database.db)))
    await t.database.db
      .insertInto('friendships')
      .values(extras.map((extra) => ({ user_id: users.me.id, friend_id: extra.id })))
      .execute()
    const headers = { authorization: `Token ${users.me.token}` }
    const small = await t.get('/api/friends/?page_size=1', headers)
    const large = await t.get('/api/friends/?page_size=100', headers)
    assert.ok(large.json().results.length > 10)
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })
})

test("friends_answers shows accepted friends' public answers, whichever of the two asked", async () => {
  const author = await insertUser(t.database.db)
  const question = await insertQuestion(t.database.db, author.id)
  for (const name of ['ben', 'cat', 'ann']) {
    await t.database.db
      .insertInto('question_votes')
      .values({ user_id: users[name].id, question_id: question.id, value: 4, skipped: false, private: false })
      .execute()
  }
  // ben is an accepted friend (ben asked me); cat asked me (pending); ann is no longer a friend.
  const answers = await t.json(`/api/questions/${question.id}/friends_answers/`, { authorization: `Token ${users.me.token}` })
  assert.deepEqual(
    answers.results.map((answer: any) => answer.user.id),
    [users.ben.id],
  )
})

test('concurrent accepts and removals, repeated ones too: count_friends equals a recount for every user', async () => {
  const people = await Promise.all(Array.from({ length: 12 }, () => insertUser(t.database.db)))
  const tokens = await Promise.all(people.map((person) => t.tokenFor(person.id)))
  // 10 distinct pairs over 12 people, so people share pairs: i asks i+1, i+2 or i+3 (mod 12).
  const pairs: [number, number][] = []
  for (let i = 0; i < 12 && pairs.length < 10; i += 1) pairs.push([i, (i + 1 + (i % 3)) % 12])
  const requests = await Promise.all(pairs.map(([a, b]) => t.send('POST', '/api/friends/', { friend: people[b].id }, tokens[a])))
  const made = requests.map((response, index) => ({ response, pair: pairs[index] })).filter(({ response }) => response.statusCode === 201)
  for (const response of requests) assert.ok([200, 201, 400].includes(response.statusCode), response.body)
  // Every pending request accepted twice at once by the person asked (20 operations on the made ones).
  const accepts = await Promise.all(
    made.flatMap(({ response, pair }) =>
      [0, 1].map(() => t.send('POST', `/api/friends/${response.json().id}/accept/`, undefined, tokens[pair[1]])),
    ),
  )
  for (const response of accepts) assert.equal(response.statusCode, 200, response.body)
  await assertCountFriendsMatchCheck()
  // Half removed twice at once, by each person; the others accepted again meanwhile.
  const operations = made.flatMap(({ response, pair }, index) => {
    const id = response.json().id
    return index % 2 === 0
      ? [
          t.send('DELETE', `/api/friends/${id}/`, undefined, tokens[pair[0]]),
          t.send('DELETE', `/api/friends/${id}/`, undefined, tokens[pair[1]]),
        ]
      : [
          t.send('POST', `/api/friends/${id}/accept/`, undefined, tokens[pair[1]]),
          t.send('DELETE', `/api/friends/${id}/`, undefined, tokens[pair[0]]),
        ]
  })
  const outcomes = await Promise.all(operations)
  for (const response of outcomes) assert.ok([200, 204, 404].includes(response.statusCode), `${response.statusCode} ${response.body}`)
  await assertCountFriendsMatchCheck()
  const remaining = await t.database.db
    .selectFrom('friendships')
    .select('id')
    .where(
      'user_id',
      'in',
      people.map((person) => person.id),
    )
    .execute()
  assert.equal(remaining.length, 0, 'every one of them removed')
  for (const person of people) {
    const row = await t.database.db.selectFrom('users').select('count_friends').where('id', '=', person.id).executeTakeFirstOrThrow()
    assert.equal(row.count_friends, 0)
  }
})

test('two people asking each other at the same moment end up with one friendship', async () => {
  const [a, b] = await Promise.all([insertUser(t.database.db), insertUser(t.database.db)])
  const [ta, tb] = await Promise.all([t.tokenFor(a.id), t.tokenFor(b.id)])
  const answers = await Promise.all([
    t.send('POST', '/api/friends/', { friend: b.id }, ta),
    t.send('POST', '/api/friends/', { friend: a.id }, tb),
  ])
  assert.deepEqual(answers.map((response) => response.statusCode).sort(), [200, 201])
  const rows = await t.database.db.selectFrom('friendships').selectAll().where('user_id', 'in', [a.id, b.id]).execute()
  assert.equal(rows.length, 1)
  assert.notEqual(rows[0].accepted_at, null)
  await assertCountFriendsMatchCheck()
})

test('deleting an account ends its friendships: its friends’ counters drop, its requests go', async () => {
  const body = { username: 'fr_leaving', email: 'fr_leaving@example.org', password: 'lantern-orchard-42' }
  const registered = await t.send('POST', '/auth/register/', body)
  assert.equal(registered.statusCode, 201, registered.body)
  const { id, auth_token: token } = registered.json()
  const [friend, asked, asking] = await Promise.all([insertUser(t.database.db), insertUser(t.database.db), insertUser(t.database.db)])
  const accepted = (await t.send('POST', '/api/friends/', { friend: friend.id }, token)).json()
  assert.equal((await t.send('POST', `/api/friends/${accepted.id}/accept/`, undefined, await t.tokenFor(friend.id))).statusCode, 200)
  assert.equal((await t.send('POST', '/api/friends/', { friend: asked.id }, token)).statusCode, 201)
  assert.equal((await t.send('POST', '/api/friends/', { friend: id }, await t.tokenFor(asking.id))).statusCode, 201)
  const before = await t.database.db.selectFrom('users').select('count_friends').where('id', '=', friend.id).executeTakeFirstOrThrow()
  assert.equal(before.count_friends, 1)

  assert.equal((await t.send('POST', '/auth/delete-account/', { password: body.password }, token)).statusCode, 204)
  const left = await t.database.db
    .selectFrom('friendships')
    .select('id')
    .where((eb) => eb.or([eb('user_id', '=', id), eb('friend_id', '=', id)]))
    .execute()
  assert.deepEqual(left, [])
  const after = await t.database.db.selectFrom('users').select('count_friends').where('id', '=', friend.id).executeTakeFirstOrThrow()
  assert.equal(after.count_friends, 0)
  const friendsList = await t.json(`/api/friends/?user=${friend.id}`, { authorization: `Token ${await t.tokenFor(friend.id)}` })
  assert.equal(friendsList.count, 0)
  await assertCountFriendsMatchCheck()
})
