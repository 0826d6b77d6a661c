import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { TIMESTAMP, assertFullUserShape } from '../helpers/shapes.ts'
import { assertCountersExact, collectionWorld, type Person } from './support.ts'

let t: TestApp
let world: ReturnType<typeof collectionWorld>
let alice: Person, bob: Person, staff: Person
let survey: any

const FIELDS = [
  'answered',
  'created_at',
  'desc',
  'end_text',
  'expire_at',
  'geo',
  'geo_info',
  'geo_url',
  'id',
  'item_count',
  'modified_at',
  'name',
  'photo',
  'question_count',
  'questions_link',
  'url',
  'user',
  'user_url',
  'username',
].sort()
const REDUCED_USER_LEFT_OUT = ['latest_compare', 'follow', 'locations', 'country', 'country_info', 'region', 'region_info']
const auth = (who: Person) => ({ authorization: `Token ${who.token}` })

before(async () => {
  t = await createTestApp('tiny')
  world = collectionWorld(t)
  alice = await world.person()
  bob = await world.person()
  staff = await world.person({ is_staff: true })
  survey = await world.collection(alice, {
    name: 'Brexit and the budget',
    desc: 'What do you think about [the budget](https://example.org)?',
  })
})
after(() => t.close())

describe('creating and reading collections', () => {
  test('the web app body {name, desc, end_text} answers 201 with the collection of spec 2.9', async () => {
    assert.deepEqual(Object.keys(survey).sort(), FIELDS)
    assert.equal(survey.name, 'Brexit and the budget')
    assert.equal(survey.end_text, 'Thanks')
    assert.equal(survey.url, `http://localhost:80/api/question_collections/${survey.id}/`)
    assert.equal(survey.user_url, `http://localhost:80/api/users/${alice.id}/`)
    assert.equal(survey.questions_link, `http://localhost:80/api/questions/?in_collections__parent=${survey.id}`)
    assert.equal(survey.username, alice.username)
    assert.equal(survey.user.id, alice.id)
    for (const field of REDUCED_USER_LEFT_OUT) assert.ok(!(field in survey.user), `reduced user has no ${field}`)
    assert.equal(survey.question_count, 0)
    assert.equal(survey.item_count, 0)
    assert.equal(survey.answered, 0)
    assert.equal(survey.photo, null)
    assert.equal(survey.geo, null)
    assert.equal(survey.geo_info, null)
    assert.match(survey.created_at, TIMESTAMP)
  })

  test('optional fields: photo, geo and expire_at', async () => {
    const geo = await t.database.db.selectFrom('areas').select('id').limit(1).executeTakeFirstOrThrow()
    const created = await world.collection(alice, {
      photo: 'https://images.example.org/c.png',
      geo: geo.id,
      expire_at: '2027-01-31T12:00:00Z',
    })
    assert.equal(created.photo, 'https://images.example.org/c.png')
    assert.equal(created.geo, geo.id)
    assert.equal(created.geo_url, `http://localhost:80/api/geos/${geo.id}/`)
    assert.equal(created.geo_info.id, geo.id)
    assert.equal(created.expire_at, '2027-01-31T12:00:00.000Z')
  })

  test('anonymous GET of a collection and of the listing, as the web app reads them', async () => {
    const one = await t.json(`/api/question_collections/${survey.id}/`)
    assert.deepEqual(
      [one.id, one.name, one.desc, one.end_text, one.photo, one.question_count, one.user.id],
      [survey.id, survey.name, survey.desc, 'Thanks', null, 0, alice.id],
    )
    const newest = await t.json('/api/question_collections/?ordering=-created_at')
    assert.ok(newest.count >= 1)
    assert.deepEqual(Object.keys(newest).sort(), ['count', 'next', 'next_id', 'previous', 'previous_id', 'results'])
    const times = newest.results.map((c: any) => c.created_at)
    assert.deepEqual(times, [...times].sort().reverse())
    const byId = await t.json(`/api/question_collections/?id=${survey.id}`)
    assert.deepEqual(
      byId.results.map((c: any) => c.id),
      [survey.id],
    )
    const history = await t.json('/api/question_collections/?ordering=-modified_at')
    assert.ok(history.results.length > 0)
  })

  test('search matches the name or the description; page_size limits the page', async () => {
    const found = await t.json('/api/question_collections/?search=brexit&page_size=3')
    assert.ok(found.results.some((c: any) => c.id === survey.id))
    assert.ok(found.results.length <= 3)
    for (const c of found.results) assert.match(`${c.name} ${c.desc}`, /brexit/i)
    const byDesc = await t.json('/api/question_collections/?search=budget%20example')
    assert.deepEqual(
      byDesc.results.map((c: any) => c.id),
      [survey.id],
    )
    const none = await t.json('/api/question_collections/?search=zzzz-nothing')
    assert.equal(none.count, 0)
  })

  test('filter by user and ordering by name and question_count', async () => {
    const mine = await t.json(`/api/question_collections/?user=${alice.id}&ordering=name`)
    assert.ok(mine.results.every((c: any) => c.user.id === alice.id))
    const names = mine.results.map((c: any) => c.name)
    assert.deepEqual(
      names,
      [...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)),
    )
    const counted = await t.json('/api/question_collections/?ordering=-question_count&page_size=20')
    const counts = counted.results.map((c: any) => c.question_count)
    assert.deepEqual(
      counts,
      [...counts].sort((a: number, b: number) => b - a),
    )
  })

  test('the full form has the full user, tags and copied_from', async () => {
    const full = await t.json(`/api/question_collections_full/${survey.id}/`)
    assertFullUserShape(full.user)
    assert.deepEqual(full.tags, [])
    assert.equal(full.copied_from, null)
    const listed = await t.json(`/api/question_collections_full/?id=${survey.id}`)
    assert.equal(listed.results[0].user.id, alice.id)
    assert.ok('locations' in listed.results[0].user)
  })
})

describe('editing and deleting', () => {
  test('the owner PATCHes name, desc and end_text as the web app does', async () => {
    const response = await t.send(
      'PATCH',
      `/api/question_collections/${survey.id}/`,
      { name: 'Brexit, the budget', desc: 'New desc', end_text: 'Bye' },
      alice.token,
    )
    assert.equal(response.statusCode, 200, response.body)
    assert.deepEqual([response.json().name, response.json().desc, response.json().end_text], ['Brexit, the budget', 'New desc', 'Bye'])
  })

  test('PUT needs the name; staff may edit too', async () => {
    const missing = await t.send('PUT', `/api/question_collections/${survey.id}/`, { desc: 'x' }, alice.token)
    assert.equal(missing.statusCode, 400)
    assert.deepEqual(missing.json(), { name: ['This field is required.'] })
    const byStaff = await t.send('PUT', `/api/question_collections_full/${survey.id}/`, { name: 'Renamed by staff' }, staff.token)
    assert.equal(byStaff.statusCode, 200, byStaff.body)
    assert.equal(byStaff.json().name, 'Renamed by staff')
    assert.equal(byStaff.json().desc, 'New desc', 'fields not sent keep their value')
  })

  test('a stranger cannot edit or delete; anonymous callers are told to sign in', async () => {
    for (const method of ['PATCH', 'PUT', 'DELETE'] as const) {
      const response = await t.send(
        method,
        `/api/question_collections/${survey.id}/`,
        method === 'DELETE' ? undefined : { name: 'Mine now' },
        bob.token,
      )
      assert.equal(response.statusCode, 403, `${method}: ${response.body}`)
      assert.deepEqual(response.json(), { detail: 'You do not have permission to perform this action.' })
    }
    const anonymous = await t.send('POST', '/api/question_collections/', { name: 'x' })
    assert.equal(anonymous.statusCode, 403)
    assert.deepEqual(anonymous.json(), { detail: 'Authentication credentials were not provided.' })
  })

  test('delete takes the items and tags with it; the collection is then 404', async () => {
    const doomed = await world.collection(bob)
    const question = await world.question(alice.id)
    await world.add(bob, { parent: doomed.id, object_id: question, type: 'Q' })
    const response = await t.send('DELETE', `/api/question_collections/${doomed.id}/`, undefined, bob.token)
    assert.equal(response.statusCode, 204)
    assert.equal((await t.get(`/api/question_collections/${doomed.id}/`)).statusCode, 404)
    const items = await t.database.db.selectFrom('question_collection_items').select('id').where('parent_id', '=', doomed.id).execute()
    assert.equal(items.length, 0)
    assert.equal((await t.send('DELETE', `/api/question_collections/${doomed.id}/`, undefined, bob.token)).statusCode, 404)
  })
})

describe('bad input answers 400 naming the field', () => {
  const cases: [string, unknown, Record<string, string[]>][] = [
    ['no name', { desc: 'x' }, { name: ['This field is required.'] }],
    ['a blank name', { name: '   ' }, { name: ['This field may not be blank.'] }],
    ['a name that is a list', { name: ['a'] }, { name: ['Not a valid string.'] }],
    ['a name that is true', { name: true }, { name: ['Not a valid string.'] }],
    ['a null name', { name: null }, { name: ['This field may not be null.'] }],
    ['a huge name', { name: 'x'.repeat(100000) }, { name: ['Ensure this field has no more than 200 characters.'] }],
    ['a huge desc', { name: 'ok', desc: 'x'.repeat(20000) }, { desc: ['Ensure this field has no more than 10000 characters.'] }],
    ['a photo that is not a URL', { name: 'ok', photo: 'not a url' }, { photo: ['Enter a valid URL.'] }],
    ['an unknown geo', { name: 'ok', geo: 999999 }, { geo: ['Invalid pk "999999" - object does not exist.'] }],
    ['a geo beyond any id', { name: 'ok', geo: 99999999999 }, { geo: ['Invalid pk "99999999999" - object does not exist.'] }],
    ['a geo that is text', { name: 'ok', geo: 'abc' }, { geo: ['A valid integer is required.'] }],
    [
      'a bad expire_at',
      { name: 'ok', expire_at: 'next week' },
      { expire_at: ['Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'] },
    ],
  ]
  for (const [what, body, expected] of cases) {
    test(what, async () => {
      const response = await t.send('POST', '/api/question_collections/', body, alice.token)
      assert.equal(response.statusCode, 400, response.body)
      assert.deepEqual(response.json(), expected)
    })
  }

  test('malformed JSON and a body that is not an object', async () => {
    const malformed = await t.request({
      method: 'POST',
      url: '/api/question_collections/',
      headers: { ...auth(alice), 'content-type': 'application/json' },
      payload: '{"name": ',
    })
    assert.equal(malformed.statusCode, 400)
    assert.match(malformed.json().detail, /^JSON parse error/)
    const list = await t.send('POST', '/api/question_collections/', [1, 2], alice.token)
    assert.equal(list.statusCode, 400)
    assert.ok(list.json().non_field_errors)
  })

  test('unknown ids and bad filters', async () => {
    assert.equal((await t.get('/api/question_collections/999999/')).statusCode, 404)
    assert.equal((await t.get('/api/question_collections/abc/')).statusCode, 404)
    assert.equal((await t.send('PATCH', '/api/question_collections/999999/', { name: 'x' }, alice.token)).statusCode, 404)
    const bad = await t.get('/api/question_collections/?id=abc')
    assert.equal(bad.statusCode, 400)
    assert.ok(bad.json().id)
  })
})

describe('answered', () => {
  test("the caller's share of the collection's questions, skips included; 0 anonymously", async () => {
    const owner = await world.person()
    const voter = await world.person()
    const c = await world.collection(owner)
    const questions = [
      await world.question(owner.id),
      await world.question(owner.id),
      await world.question(owner.id),
      await world.question(owner.id),
    ]
    for (const q of questions) await world.add(owner, { parent: c.id, object_id: q, type: 'Q' })
    await world.add(owner, { parent: c.id, type: 'B', content_object: [{ title: 'Half way', text: 'Well done' }] })
    for (const [q, value] of [
      [questions[0], 4],
      [questions[1], null],
    ] as const) {
      const vote = await t.send('POST', '/api/question_votes/', { object_id: q, value, collection: c.id }, voter.token)
      assert.equal(vote.statusCode, 201, vote.body)
    }
    assert.equal((await t.json(`/api/question_collections/${c.id}/`, auth(voter))).answered, 50)
    assert.equal((await t.json(`/api/question_collections/${c.id}/`)).answered, 0)
    assert.equal((await t.json(`/api/question_collections/?id=${c.id}`, auth(owner))).results[0].answered, 0)
    const listed = await t.json(`/api/question_collections_full/?id=${c.id}`, auth(voter))
    assert.equal(listed.results[0].answered, 50)
    await assertCountersExact(t)
  })
})

describe('no query per row', () => {
  test('a page of 20 collections takes the statements of a page of 2, for both forms', async () => {
    const owners = [await world.person(), await world.person(), await world.person()]
    const tag = await t.database.db.selectFrom('tags').select('id').limit(1).executeTakeFirstOrThrow()
    for (let i = 0; i < 20; i++) {
      const c = await world.collection(owners[i % 3], { name: `Paged ${i}` })
      await t.database.db.insertInto('question_collection_tags').values({ collection_id: c.id, tag_id: tag.id }).execute()
    }
    for (const base of ['question_collections', 'question_collections_full']) {
      const small = await t.get(`/api/${base}/?search=Paged&page_size=2`, auth(bob))
      const large = await t.get(`/api/${base}/?search=Paged&page_size=20`, auth(bob))
      assert.equal(large.json().results.length, 20)
      assert.ok(Number(small.headers['x-query-count']) > 0)
      assert.equal(small.headers['x-query-count'], large.headers['x-query-count'], base)
    }
  })
})
