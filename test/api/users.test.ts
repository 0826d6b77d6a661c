import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { assertFullUserShape } from '../helpers/shapes.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

test('users and user_politician serve the full user form, identically', async () => {
  const users = await t.json('/api/users/?page_size=100')
  assert.ok(users.count >= 50)
  for (const user of users.results) assertFullUserShape(user)
  assert.deepEqual(
    await t.json('/api/user_politician/?page_size=100'),
    JSON.parse(JSON.stringify(users).replaceAll('/api/users/?', '/api/user_politician/?')),
  )
  const first = users.results[0]
  assert.deepEqual(await t.json(`/api/users/${first.id}/`), first)
})

test('a user without a photo gets the default avatar, which resolves', async () => {
  const row = await insertUser(t.database.db, { photo: null })
  const user = await t.json(`/api/users/${row.id}/`)
  assert.equal(user.photo, 'http://localhost:80/static/default-avatar.svg')
  const avatar = await t.get('/static/default-avatar.svg')
  assert.equal(avatar.statusCode, 200)
  assert.match(String(avatar.headers['content-type']), /image\/svg\+xml/)
})

test('id__in and username__iexact, as the web app and the old client send them', async () => {
  const rows = await t.database.db.selectFrom('users').select(['id', 'username']).orderBy('id').limit(3).execute()
  const listed = await t.json(`/api/users/?id__in=${rows.map((r) => r.id).join(',')}`)
  assert.deepEqual(
    listed.results.map((u: any) => u.id),
    rows.map((r) => r.id),
  )
  const exact = await t.json(`/api/users/?username__iexact=${rows[1].username.toUpperCase()}`)
  assert.deepEqual(
    exact.results.map((u: any) => u.id),
    [rows[1].id],
  )
  assert.equal((await t.json('/api/users/?username__iexact=nobody-has-this-name')).count, 0)
})

test('politician__type and locations__geo find candidates in an area', async () => {
  const candidate = await t.database.db
    .selectFrom('users')
    .innerJoin('politicians', 'politicians.id', 'users.politician_id')
    .innerJoin('user_geos', 'user_geos.user_id', 'users.id')
    .select(['users.id', 'user_geos.area_id', 'politicians.type'])
    .where('politicians.type', '=', 'candidate')
    .executeTakeFirstOrThrow()
  const body = await t.json(`/api/users/?politician__type=candidate&locations__geo=${candidate.area_id}&page_size=100`)
  assert.ok(body.results.some((u: any) => u.id === candidate.id))
  for (const user of body.results) {
    assert.equal(user.politician_info.type, 'candidate')
    assert.ok(user.country === candidate.area_id || user.region === candidate.area_id)
  }
  const none = await t.json('/api/users/?politician__type=astronaut')
  assert.equal(none.count, 0)
})

test('a deleted user is anonymised: no age', async () => {
  const row = await insertUser(t.database.db, { is_deleted: true, dob: '1970-01-01', username: 'deleted_user_x' })
  const user = await t.json(`/api/users/${row.id}/`)
  assert.equal(user.is_deleted, true)
  assert.equal(user.age, null)
})

test('a listing of users costs a small bound of statements, not one per row', async () => {
  for (const size of [1, 50, 100]) {
    const response = await t.get(`/api/users/?page_size=${size}`)
    assert.ok(Number(response.headers['x-query-count']) <= 8, `a page of ${size} took ${response.headers['x-query-count']} statements`)
  }
})

test("a user's locations resolve to their user-area links", async () => {
  const user = (await t.json('/api/users/?page_size=100')).results.find((u: any) => u.locations.length > 0)
  assert.ok(user, 'seeded users have locations')
  const links = await Promise.all(user.locations.map((url: string) => t.json(url.replace('http://localhost:80', ''))))
  for (const link of links) assert.equal(link.user, user.id)
  assert.deepEqual(links.map((link: any) => link.geo).sort(), [user.country, user.region].filter((id) => id !== null).sort())
  const listed = await t.json(`/api/user_geos/?user=${user.id}`)
  assert.equal(listed.count, user.locations.length)
})
