import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertCountersMatchRecompute } from '../groups/counters.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const auth = (name: string) => ({ authorization: `Token ${users[name].token}` })
const follow = (who: string, whom: unknown) => t.send('POST', '/api/following_users/', { following: whom }, users[who].token)
const counters = async (name: string) =>
  t.database.db
    .selectFrom('users')
    .select(['count_following_users', 'count_followers'])
    .where('id', '=', users[name].id)
    .executeTakeFirstOrThrow()

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['me', 'ann', 'ben', 'cat', 'gone']) {
    const row = await insertUser(t.database.db, { username: `fu_${name}` })
    users[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  await t.database.db.updateTable('users').set({ is_deleted: true, is_active: false }).where('id', '=', users.gone.id).execute()
})
after(() => t.close())

describe('following a user', () => {
  test('POST {following} answers 201 with the id the web app stores; counters move', async () => {
    const before = { me: await counters('me'), ann: await counters('ann') }
    const response = await follow('me', users.ann.id)
    assert.equal(response.statusCode, 201, response.body)
    const link = response.json()
    assert.deepEqual(Object.keys(link).sort(), ['created_at', 'following', 'id', 'url', 'user'])
    assert.equal(typeof link.id, 'number')
    assert.equal(link.url, `http://localhost:80/api/following_users/${link.id}/`)
    assert.equal(link.user, users.me.id)
    assert.equal(link.following, users.ann.id)
    assert.match(link.created_at, TIMESTAMP)
    assert.equal((await counters('me')).count_following_users, before.me.count_following_users + 1)
    assert.equal((await counters('ann')).count_followers, before.ann.count_followers + 1)
    assert.equal((await follow('me', String(users.ben.id))).statusCode, 201, 'ids as strings work')
    const form = await t.request({
      method: 'POST',
      url: '/api/following_users/',
      headers: { ...auth('ann'), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `following=${users.ben.id}`,
    })
    assert.equal(form.statusCode, 201)
  })

  test('oneself, twice, nobody: 400 naming the problem', async () => {
    const cases: [unknown, Record<string, string[]>][] = [
      [users.me.id, { following: ['You cannot follow yourself.'] }],
      [users.ann.id, { non_field_errors: ['The fields user, following must make a unique set.'] }],
      [999999, { following: ['Invalid pk "999999" - object does not exist.'] }],
      [users.gone.id, { following: [`Invalid pk "${users.gone.id}" - object does not exist.`] }],
      ['abc', { following: ['A valid integer is required.'] }],
    ]
    for (const [whom, answer] of cases) {
      const response = await follow('me', whom)
      assert.equal(response.statusCode, 400, JSON.stringify(whom))
      assert.deepEqual(response.json(), answer)
    }
    assert.deepEqual((await t.send('POST', '/api/following_users/', {}, users.me.token)).json(), { following: ['This field is required.'] })
    assert.equal((await t.send('POST', '/api/following_users/', { following: users.ann.id })).statusCode, 403)
  })

  test('the full user shows the caller their follow link', async () => {
    const ann = await t.json(`/api/users/${users.ann.id}/`, auth('me'))
    assert.equal(ann.follow.length, 1)
    assert.equal(ann.follow[0].following, users.ann.id)
    assert.equal((await t.json(`/api/users/${users.ann.id}/`)).follow.length, 0)
  })
})

describe('listing follow links as the web app asks', () => {
  test('user and following (am I following them?)', async () => {
    const mine = await t.json(`/api/following_users/?user=${users.me.id}&following=${users.ann.id}`, auth('me'))
    assert.equal(mine.count, 1)
    assert.equal(mine.results[0].following, users.ann.id)
    const none = await t.json(`/api/following_users/?user=${users.me.id}&following=${users.cat.id}`, auth('me'))
    assert.equal(none.count, 0)
  })

  test('user and following__id__in (which of these do I follow?)', async () => {
    const { results } = await t.json(
      `/api/following_users/?user=${users.me.id}&following__id__in=${users.ann.id},${users.cat.id},${users.ben.id}`,
    )
    assert.deepEqual(results.map((r: any) => r.following).sort(), [users.ann.id, users.ben.id].sort())
    const followersOfBen = await t.json(`/api/following_users/?following=${users.ben.id}`)
    assert.deepEqual(followersOfBen.results.map((r: any) => r.user).sort(), [users.me.id, users.ann.id].sort())
    assert.equal((await t.get('/api/following_users/?following__id__in=1;2')).statusCode, 400)
  })

  test('ordering and a constant number of statements a page', async () => {
    const newest = (await t.json('/api/following_users/?page_size=100')).results.map((r: any) => r.created_at)
    assert.deepEqual(newest, [...newest].sort().reverse())
    const small = await t.get('/api/following_users/?page_size=2')
    const large = await t.get('/api/following_users/?page_size=50')
    assert.ok(large.json().results.length > 10, 'more rows than the small page')
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })
})

describe('unfollowing', () => {
  test('DELETE by the follower only; counters move back', async () => {
    const link = (await t.json(`/api/following_users/?user=${users.me.id}&following=${users.ann.id}`)).results[0]
    assert.equal((await t.get(`/api/following_users/${link.id}/`)).statusCode, 200)
    assert.equal((await t.send('DELETE', `/api/following_users/${link.id}/`, undefined, users.ann.token)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/following_users/${link.id}/`)).statusCode, 403)
    const before = { me: await counters('me'), ann: await counters('ann') }
    assert.equal((await t.send('DELETE', `/api/following_users/${link.id}/`, undefined, users.me.token)).statusCode, 204)
    assert.equal((await counters('me')).count_following_users, before.me.count_following_users - 1)
    assert.equal((await counters('ann')).count_followers, before.ann.count_followers - 1)
    assert.equal((await t.get(`/api/following_users/${link.id}/`)).statusCode, 404)
    assert.equal((await t.send('DELETE', `/api/following_users/${link.id}/`, undefined, users.me.token)).statusCode, 404)
    assert.equal((await follow('me', users.ann.id)).statusCode, 201, 'following again after unfollowing')
  })

  test('people following each other at the same moment', async () => {
    const pairs: [string, string][] = [
      ['ben', 'cat'],
      ['cat', 'ben'],
      ['cat', 'me'],
      ['me', 'cat'],
      ['ben', 'me'],
      ['ann', 'cat'],
      ['cat', 'ann'],
    ]
    const responses = await Promise.all(pairs.map(([who, whom]) => follow(who, users[whom].id)))
    for (const response of responses) assert.ok([201, 400].includes(response.statusCode), `${response.statusCode} ${response.body}`)
    const links = await t.json(`/api/following_users/?user=${users.cat.id}`)
    const removals = await Promise.all(
      links.results.map((link: any) => t.send('DELETE', `/api/following_users/${link.id}/`, undefined, users.cat.token)),
    )
    for (const response of removals) assert.equal(response.statusCode, 204)
    await assertCountersMatchRecompute(t.database.db)
  })

  test('stored counters equal a recomputation', async () => {
    await assertCountersMatchRecompute(t.database.db)
  })
})
