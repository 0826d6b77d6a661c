import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertTag, insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'
import { assertCountersMatchRecompute } from '../groups/counters.ts'

let t: TestApp
const users: Record<string, { id: number; token: string }> = {}
const tags: Record<string, number> = {}
const auth = (name: string) => ({ authorization: `Token ${users[name].token}` })
const tagAs = (id: number, name?: string) => t.json(`/api/tags/${id}/`, name ? auth(name) : {})
const userCount = async (name: string) =>
  (await t.database.db.selectFrom('users').select('count_following_tags').where('id', '=', users[name].id).executeTakeFirstOrThrow())
    .count_following_tags

before(async () => {
  t = await createTestApp('tiny')
  for (const name of ['reader', 'other']) {
    const row = await insertUser(t.database.db, { username: `ft_${name}` })
    users[name] = { id: row.id, token: await t.tokenFor(row.id) }
  }
  tags.rivers = (await insertTag(t.database.db, 'Rivers')).id
  tags.bridges = (await insertTag(t.database.db, 'Bridges')).id
  tags.canals = (await insertTag(t.database.db, 'Canals')).id
})
after(() => t.close())

describe('the follow and unfollow actions on a tag', () => {
  test('follow with no body or {}: 201 then 200; the following flag flips for the caller only', async () => {
    const before = await userCount('reader')
    // ReactLite history: axios post without data.
    const first = await t.send('POST', `/api/tags/${tags.rivers}/follow/`, undefined, users.reader.token)
    assert.equal(first.statusCode, 201, first.body)
    assert.equal(first.json().following, true)
    assert.equal(first.json().followers_count, 1)
    // OLD TopicFlow: '{}' as JSON.
    const again = await t.send('POST', `/api/tags/${tags.rivers}/follow/`, {}, users.reader.token)
    assert.equal(again.statusCode, 200)
    assert.equal(again.json().followers_count, 1)
    assert.equal((await tagAs(tags.rivers, 'reader')).following, true)
    assert.equal((await tagAs(tags.rivers, 'other')).following, false)
    assert.equal((await tagAs(tags.rivers)).following, false)
    assert.equal(await userCount('reader'), before + 1)
    const listed = (await t.json(`/api/tags/?search=Rivers`, auth('reader'))).results[0]
    assert.equal(listed.following, true)
  })

  test('unfollow: 200 with following false, also when not following', async () => {
    const before = await userCount('reader')
    const response = await t.send('POST', `/api/tags/${tags.rivers}/unfollow/`, undefined, users.reader.token)
    assert.equal(response.statusCode, 200)
    assert.equal(response.json().following, false)
    assert.equal(response.json().followers_count, 0)
    assert.equal(await userCount('reader'), before - 1)
    assert.equal((await t.send('POST', `/api/tags/${tags.rivers}/unfollow/`, {}, users.reader.token)).statusCode, 200)
    assert.equal(await userCount('reader'), before - 1)
  })

  test('unknown tags 404; without credentials 403', async () => {
    assert.equal((await t.send('POST', '/api/tags/999999/follow/', {}, users.reader.token)).statusCode, 404)
    assert.equal((await t.send('POST', '/api/tags/999999/unfollow/', {}, users.reader.token)).statusCode, 404)
    assert.equal((await t.send('POST', `/api/tags/${tags.rivers}/follow/`, {})).statusCode, 403)
  })
})

describe('the following_tags resource', () => {
  test('POST {tag}: 201; twice or unknown: 400', async () => {
    const response = await t.send('POST', '/api/following_tags/', { tag: tags.bridges }, users.reader.token)
    assert.equal(response.statusCode, 201, response.body)
    const link = response.json()
    assert.deepEqual(Object.keys(link).sort(), ['created_at', 'id', 'tag', 'url', 'user'])
    assert.equal(link.url, `http://localhost:80/api/following_tags/${link.id}/`)
    assert.equal(link.user, users.reader.id)
    assert.equal(link.tag, tags.bridges)
    assert.match(link.created_at, TIMESTAMP)
    assert.equal((await tagAs(tags.bridges, 'reader')).following, true)
    const twice = await t.send('POST', '/api/following_tags/', { tag: tags.bridges }, users.reader.token)
    assert.deepEqual(twice.json(), { non_field_errors: ['The fields user, tag must make a unique set.'] })
    const unknown = await t.send('POST', '/api/following_tags/', { tag: 999999 }, users.reader.token)
    assert.deepEqual(unknown.json(), { tag: ['Invalid pk "999999" - object does not exist.'] })
    await t.send('POST', '/api/following_tags/', { tag: tags.canals }, users.other.token)
    await t.send('POST', '/api/following_tags/', { tag: tags.bridges }, users.other.token)
  })

  test('filters by user and tag', async () => {
    const pairs = async (query: string) =>
      (await t.json(`/api/following_tags/?page_size=100&${query}`)).results.map((r: any) => [r.user, r.tag]).sort()
    assert.deepEqual(await pairs(`user=${users.reader.id}`), [[users.reader.id, tags.bridges]])
    assert.deepEqual(
      await pairs(`tag=${tags.bridges}`),
      [
        [users.reader.id, tags.bridges],
        [users.other.id, tags.bridges],
      ].sort(),
    )
    assert.deepEqual(await pairs(`user=${users.other.id}&tag=${tags.canals}`), [[users.other.id, tags.canals]])
    const small = await t.get('/api/following_tags/?page_size=2')
    const large = await t.get('/api/following_tags/?page_size=50')
    assert.ok(large.json().results.length > 10, 'more rows than the small page')
    assert.equal(small.headers['x-query-count'], large.headers['x-query-count'])
  })

  test('DELETE by the follower only', async () => {
    const link = (await t.json(`/api/following_tags/?user=${users.reader.id}&tag=${tags.bridges}`)).results[0]
    assert.equal((await t.send('DELETE', `/api/following_tags/${link.id}/`, undefined, users.other.token)).statusCode, 403)
    assert.equal((await t.send('DELETE', `/api/following_tags/${link.id}/`, undefined, users.reader.token)).statusCode, 204)
    assert.equal((await tagAs(tags.bridges, 'reader')).following, false)
    assert.equal((await tagAs(tags.bridges)).followers_count, 1)
    assert.equal((await t.get(`/api/following_tags/${link.id}/`)).statusCode, 404)
  })

  test('stored counters equal a recomputation', async () => {
    await assertCountersMatchRecompute(t.database.db)
  })
})
