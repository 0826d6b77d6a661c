import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'

let t: TestApp
let token: string
const users: number[] = []

before(async () => {
  t = await createTestApp('tiny')
  for (let i = 0; i < 2; i++) users.push((await insertUser(t.database.db)).id)
  token = await t.tokenFor(users[0])
})
after(() => t.close())

const idsOf = (page: any) => page.results.map((item: any) => item.id)

describe('a repeated query parameter is its last value, as django-filter and DRF read it', () => {
  test('page_size on the questions listing: the last one sets the page', async () => {
    const small = await t.get('/api/questions/?page_size=100&page_size=2')
    assert.equal(small.statusCode, 200, small.body)
    assert.equal(small.json().results.length, 2)
    const large = await t.get('/api/questions/?page_size=2&page_size=20')
    assert.equal(large.statusCode, 200, large.body)
    assert.equal(large.json().results.length, Math.min(20, large.json().count))
    assert.ok(large.json().results.length > 2)
    // An empty last value is no page size at all (the default 10), as DRF reads `page_size=`.
    const empty = await t.get('/api/questions/?page_size=2&page_size=')
    assert.equal(empty.statusCode, 200, empty.body)
    assert.equal(empty.json().results.length, 10)
  })

  test('an id filter on the users listing: only the last value filters, and only the last is checked', async () => {
    const [first, second] = users
    const last = await t.get(`/api/users/?id=${first}&id=${second}`)
    assert.equal(last.statusCode, 200, last.body)
    assert.deepEqual(idsOf(last.json()), [second])
    const badFirst = await t.get(`/api/users/?id=abc&id=${first}`)
    assert.equal(badFirst.statusCode, 200, badFirst.body)
    assert.deepEqual(idsOf(badFirst.json()), [first])
    const badLast = await t.get(`/api/users/?id=${first}&id=abc`)
    assert.equal(badLast.statusCode, 400)
    assert.deepEqual(badLast.json(), { id: ['Enter a whole number.'] })
  })

  test('every parameter, on a route without a query schema too', async () => {
    const response = await t.get('/auth/echo/?a=1&a=2&b=x')
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { a: '2', b: 'x' })
  })
})

describe('a repeated form field', () => {
  const form = (url: string, payload: string) =>
    t.request({
      method: 'POST',
      url,
      headers: { authorization: `Token ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload,
    })

  test('a field that takes one value keeps the last', async () => {
    const response = await form('/api/question_collections/', 'name=First+name&name=Second+name&desc=a&desc=b')
    assert.equal(response.statusCode, 201, response.body)
    assert.deepEqual([response.json().name, response.json().desc], ['Second name', 'b'])
    const stored = await t.json(`/api/question_collections/${response.json().id}/`)
    assert.deepEqual([stored.name, stored.desc], ['Second name', 'b'])
  })

  test('an empty last value is an empty field: a required name is refused as blank', async () => {
    const response = await form('/api/question_collections/', 'name=First&name=')
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { name: ['This field may not be blank.'] })
  })

  test('a JSON list for a text field is still refused', async () => {
    const response = await t.send('POST', '/api/question_collections/', { name: ['a', 'b'] }, token)
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { name: ['Not a valid string.'] })
  })
})
