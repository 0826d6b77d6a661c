import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Type } from 'typebox'
import { createTestApp, type TestApp } from '../helpers/app.ts'

const TypedBody = Type.Object({
  count: Type.Integer({ minimum: 1, maximum: 10 }),
  ratio: Type.Optional(Type.Number()),
  flag: Type.Optional(Type.Boolean()),
  name: Type.Optional(Type.String({ maxLength: 5 })),
})

let t: TestApp

before(async () => {
  t = await createTestApp('tiny', {}, (app) => {
    // A typed write route under the shared conventions, to see how bodies are parsed, coerced and refused.
    app.post(
      '/api/test_typed_bodies/',
      { schema: { body: TypedBody, response: { 201: TypedBody } }, config: { access: 'anyone' } },
      async (request, reply) => reply.code(201).send(request.body),
    )
    app.get('/api/test_failures/', { config: { access: 'anyone' } }, async () => {
      throw new Error('secret internals at /srv/app.ts:42')
    })
  })
})
after(() => t.close())

describe('pagination envelope (spec 2.1)', () => {
  test('first page: count, next with the other parameters, no previous, default size 10', async () => {
    const body = await t.json('/api/geos/?m_type=country&ordering=name')
    assert.deepEqual(Object.keys(body), ['count', 'next', 'previous', 'next_id', 'previous_id', 'results'])
    assert.ok(body.count > 100, 'every country is seeded')
    assert.equal(body.results.length, 10)
    assert.equal(body.previous, null)
    assert.equal(body.previous_id, null)
    assert.equal(body.next_id, 2)
    assert.equal(body.next, 'http://localhost:80/api/geos/?m_type=country&ordering=name&page=2')
  })

  test('middle page links both ways; the link to page 1 drops `page`', async () => {
    const body = await t.json('/api/geos/?page=2&page_size=5&m_type=country')
    assert.equal(body.results.length, 5)
    assert.equal(body.previous, 'http://localhost:80/api/geos/?m_type=country&page_size=5')
    assert.equal(body.next, 'http://localhost:80/api/geos/?m_type=country&page=3&page_size=5')
    assert.equal(body.previous_id, 1)
    assert.equal(body.next_id, 3)
  })

  test('pages are disjoint and cover the listing exactly once', async () => {
    const first = await t.json('/api/geos/?page_size=100&ordering=m_type')
    const seen = new Set<number>()
    let url: string | null = '/api/geos/?page_size=7&ordering=m_type'
    while (url) {
      const page: any = await t.json(url.replace('http://localhost:80', ''))
      for (const area of page.results) {
        assert.ok(!seen.has(area.id), `area ${area.id} appears twice`)
        seen.add(area.id)
      }
      url = page.next
    }
    assert.equal(seen.size, first.count)
  })

  test('page_size is capped at 100 and a bad one falls back to 10', async () => {
    assert.equal((await t.json('/api/geos/?page_size=500')).results.length, 100)
    assert.equal((await t.json('/api/geos/?page_size=abc')).results.length, 10)
    assert.equal((await t.json('/api/geos/?page_size=0')).results.length, 10)
  })

  test('the last page has no next; page=last resolves to it', async () => {
    const { count } = await t.json('/api/geos/')
    const lastNumber = Math.ceil(count / 10)
    const last = await t.json(`/api/geos/?page=${lastNumber}`)
    assert.equal(last.next, null)
    assert.equal(last.next_id, null)
    assert.equal(last.results.length, count - (lastNumber - 1) * 10)
    assert.deepEqual((await t.json('/api/geos/?page=last')).results, last.results)
  })

  for (const page of ['0', '-1', 'abc', '2.0', '100000']) {
    test(`page=${page} answers 404 Invalid page.`, async () => {
      const response = await t.get(`/api/geos/?page=${page}`)
      assert.equal(response.statusCode, 404)
      assert.deepEqual(response.json(), { detail: 'Invalid page.' })
    })
  }

  test("a bad filter answers its 400 before a bad page's 404, as DRF filters before it paginates", async () => {
    const response = await t.get('/api/question_collection_users/?parent=999999&page=abc')
    assert.equal(response.statusCode, 400)
    assert.deepEqual(Object.keys(response.json()), ['parent'])
  })

  test('an empty listing is a valid first page', async () => {
    const body = await t.json('/api/geos/?m_type=nowhere')
    assert.deepEqual(body, { count: 0, next: null, previous: null, next_id: null, previous_id: null, results: [] })
  })
})

describe('ordering', () => {
  test('ascending, descending and several fields', async () => {
    const up = (await t.json('/api/tags/?ordering=text&page_size=100')).results.map((tag: any) => tag.text)
    const down = (await t.json('/api/tags/?ordering=-text&page_size=100')).results.map((tag: any) => tag.text)
    assert.deepEqual(
      up,
      [...up].sort((a: string, b: string) => a.localeCompare(b, 'en', { sensitivity: 'base' })),
    )
    assert.deepEqual(down, [...up].reverse())
    const byCount = (await t.json('/api/tags/?ordering=-questions_count,text&page_size=100')).results
    for (let i = 1; i < byCount.length; i++) {
      const [a, b] = [byCount[i - 1], byCount[i]]
      assert.ok(a.questions_count > b.questions_count || (a.questions_count === b.questions_count && a.text.localeCompare(b.text) <= 0))
    }
  })

  test('unknown fields are ignored, falling back to the default order', async () => {
    const plain = await t.json('/api/tags/?page_size=100')
    assert.deepEqual(await t.json('/api/tags/?page_size=100&ordering=nonsense,-password'), plain)
    const injected = await t.get('/api/tags/?ordering=text;drop table tags')
    assert.equal(injected.statusCode, 200)
    assert.equal((await t.json('/api/tags/')).count, plain.count)
  })
})

describe('errors are shaped as DRF shapes them', () => {
  test('unknown id: 404 Not found.', async () => {
    const response = await t.get('/api/questions/999999/')
    assert.equal(response.statusCode, 404)
    assert.deepEqual(response.json(), { detail: 'Not found.' })
  })

  test('an id that is not a number names nothing: 404', async () => {
    const response = await t.get('/api/questions/abc/')
    assert.equal(response.statusCode, 404)
    assert.deepEqual(response.json(), { detail: 'Not found.' })
  })

  test('a wrong type in a query parameter: 400 naming the parameter', async () => {
    const response = await t.get('/api/questions/?group=abc&user__id=x')
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { group: ['Enter a whole number.'], user__id: ['Enter a whole number.'] })
  })

  test('ids beyond what a row can hold are refused or match nothing, never a server error', async () => {
    assert.equal((await t.get('/api/questions/99999999999/')).statusCode, 404)
    const filter = await t.get('/api/questions/?group=99999999999')
    assert.equal(filter.statusCode, 400)
    assert.deepEqual(filter.json(), { group: ['Ensure this value is less than or equal to 2147483647.'] })
    const list = await t.get('/api/users/?id__in=1,99999999999')
    assert.equal(list.statusCode, 200)
  })

  test('a null character is refused before it reaches SQL', async () => {
    const response = await t.get('/api/questions/?search=nhs%00')
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { search: ['Null characters are not allowed.'] })
    const body = await t.request({ method: 'POST', url: '/api/test_typed_bodies/', payload: { count: 1, name: 'a\u0000' } })
    assert.deepEqual(body.json(), { name: ['Null characters are not allowed.'] })
  })

  test('a failure inside the service: 500 with a fixed detail and no internals', async () => {
    const response = await t.get('/api/test_failures/')
    assert.equal(response.statusCode, 500)
    assert.deepEqual(response.json(), { detail: 'A server error occurred.' })
    assert.ok(!response.body.includes('secret'))
  })

  test('an unrouted path: 404 JSON', async () => {
    const response = await t.get('/api/no_such_resource/')
    assert.equal(response.statusCode, 404)
    assert.deepEqual(response.json(), { detail: 'Not found.' })
  })

  test('method not allowed: 405 with the method named and the Allow header', async () => {
    const response = await t.request({ method: 'DELETE', url: '/api/questions/' })
    assert.equal(response.statusCode, 405)
    assert.deepEqual(response.json(), { detail: 'Method "DELETE" not allowed.' })
    assert.equal(response.headers.allow, 'GET, POST, HEAD, OPTIONS')
  })

  test('malformed JSON: 400 with the parser message, nothing else', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/auth/echo/',
      headers: { 'content-type': 'application/json' },
      payload: '{"a": ',
    })
    assert.equal(response.statusCode, 400)
    assert.match(response.json().detail, /^JSON parse error - /)
  })

  test('an unsupported media type: 415 naming it', async () => {
    const response = await t.request({ method: 'POST', url: '/auth/echo/', headers: { 'content-type': 'text/plain' }, payload: 'hello' })
    assert.equal(response.statusCode, 415)
    assert.deepEqual(response.json(), { detail: 'Unsupported media type "text/plain" in request.' })
  })

  test('a body over 1 MiB: 413 with a clear message', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) })
    const response = await t.request({ method: 'POST', url: '/auth/echo/', headers: { 'content-type': 'application/json' }, payload: big })
    assert.equal(response.statusCode, 413)
    assert.match(response.json().detail, /exceeds the limit of 1048576 bytes/)
  })

  test('JSON values of the wrong type are refused as DRF refuses them, not converted', async () => {
    const response = await t.request({ method: 'POST', url: '/api/test_typed_bodies/', payload: { count: true, ratio: [1], name: null } })
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), {
      count: ['A valid integer is required.'],
      ratio: ['A valid number is required.'],
      name: ['This field may not be null.'],
    })
    const text = await t.request({ method: 'POST', url: '/api/test_typed_bodies/', payload: { count: 2, name: false } })
    assert.deepEqual(text.json(), { name: ['Not a valid string.'] })
    const fine = await t.request({ method: 'POST', url: '/api/test_typed_bodies/', payload: { count: '3', name: 12 } })
    assert.equal(fine.statusCode, 201, 'numbers in strings and numbers for text are taken, as DRF takes them')
  })

  test('validation errors name every field with DRF messages', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/test_typed_bodies/',
      payload: { count: 'many', ratio: 'half', flag: 'maybe', name: 'too long' },
    })
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), {
      count: ['A valid integer is required.'],
      ratio: ['A valid number is required.'],
      flag: ['Must be a valid boolean.'],
      name: ['Ensure this field has no more than 5 characters.'],
    })
  })

  test('a missing field and an out-of-range value', async () => {
    const missing = await t.request({ method: 'POST', url: '/api/test_typed_bodies/', payload: {} })
    assert.deepEqual(missing.json(), { count: ['This field is required.'] })
    const high = await t.request({ method: 'POST', url: '/api/test_typed_bodies/', payload: { count: 11 } })
    assert.deepEqual(high.json(), { count: ['Ensure this value is less than or equal to 10.'] })
  })

  test('a body that is not an object: non_field_errors', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/test_typed_bodies/',
      headers: { 'content-type': 'application/json' },
      payload: '[1, 2]',
    })
    assert.equal(response.statusCode, 400)
    assert.ok(Array.isArray(response.json().non_field_errors))
  })
})

describe('request bodies: JSON, form fields or none, coerced as DRF does', () => {
  test('form-urlencoded strings become integers, numbers and booleans', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/api/test_typed_bodies/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'count=3&ratio=0.5&flag=1&name=ab',
    })
    assert.equal(response.statusCode, 201)
    assert.deepEqual(response.json(), { count: 3, ratio: 0.5, flag: true, name: 'ab' })
  })

  for (const [raw, expected] of [
    ['true', true],
    ['yes', true],
    ['on', true],
    ['0', false],
    ['false', false],
    ['off', false],
  ] as const) {
    test(`boolean "${raw}" is ${expected}`, async () => {
      const response = await t.request({ method: 'POST', url: '/api/test_typed_bodies/', payload: { count: '2', flag: raw } })
      assert.equal(response.statusCode, 201)
      assert.deepEqual(response.json(), { count: 2, flag: expected })
    })
  }

  test('a number where a string is expected is taken as its text', async () => {
    const response = await t.request({ method: 'POST', url: '/api/test_typed_bodies/', payload: { count: 1, name: 123 } })
    assert.deepEqual(response.json(), { count: 1, name: '123' })
  })

  test('an empty JSON body is {}, a body of null stays null, no body at all is {}', async () => {
    const empty = await t.request({ method: 'POST', url: '/auth/echo/', headers: { 'content-type': 'application/json' }, payload: '' })
    assert.deepEqual(empty.json(), {})
    const nullBody = await t.request({
      method: 'POST',
      url: '/auth/echo/',
      headers: { 'content-type': 'application/json' },
      payload: 'null',
    })
    assert.equal(nullBody.statusCode, 200)
    assert.equal(nullBody.body, 'null')
    const none = await t.request({ method: 'POST', url: '/auth/echo/' })
    assert.deepEqual(none.json(), {})
  })

  test('repeated form keys become lists', async () => {
    const response = await t.request({
      method: 'POST',
      url: '/auth/echo/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=1&a=2&b=x',
    })
    assert.deepEqual(response.json(), { a: ['1', '2'], b: 'x' })
  })
})

describe('Allow, OPTIONS, HEAD and trailing slashes', () => {
  test('every answer of a resource carries Allow, errors included', async () => {
    assert.equal((await t.get('/api/questions/')).headers.allow, 'GET, POST, HEAD, OPTIONS')
    assert.equal((await t.get('/api/questions/1/')).headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
    assert.equal((await t.get('/api/questions/99999/')).headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS')
    assert.equal((await t.get('/api/census_data/')).headers.allow, 'GET, HEAD, OPTIONS')
    assert.equal((await t.get('/auth/echo/')).headers.allow, 'GET, POST, HEAD, OPTIONS')
  })

  test('OPTIONS describes the resource', async () => {
    const response = await t.request({ method: 'OPTIONS', url: '/api/questions/' })
    assert.equal(response.statusCode, 200)
    const body = response.json()
    assert.equal(body.name, 'Question List')
    assert.ok(body.description.length > 0)
    assert.deepEqual(body.renders, ['application/json', 'text/html'])
    assert.deepEqual(body.parses, ['application/json', 'application/x-www-form-urlencoded'])
    assert.equal(body.actions, undefined, 'a read-only resource offers no actions')
  })

  test('OPTIONS of a writable resource lists the POST fields to a signed-in caller', async () => {
    const token = await t.tokenFor(1)
    const response = await t.request({ method: 'OPTIONS', url: '/api/test_typed_bodies/', headers: { authorization: `Token ${token}` } })
    const fields = response.json().actions.POST
    assert.deepEqual(fields.count, { type: 'integer', required: true, read_only: false, label: 'Count', min_value: 1, max_value: 10 })
    assert.equal(fields.flag.type, 'boolean')
    assert.equal(fields.name.max_length, 5)
  })

  test('HEAD answers as GET does, without a body', async () => {
    const get = await t.get('/api/tags/')
    const head = await t.request({ method: 'HEAD', url: '/api/tags/' })
    assert.equal(head.statusCode, 200)
    assert.equal(head.body, '')
    assert.equal(head.headers.allow, get.headers.allow)
    assert.equal(head.headers['content-type'], get.headers['content-type'])
  })

  test('a GET without the trailing slash is redirected to it, query kept', async () => {
    const response = await t.get('/api/questions?page_size=2')
    assert.equal(response.statusCode, 301)
    assert.equal(response.headers.location, '/api/questions/?page_size=2')
    const detail = await t.get('/api/tags/1')
    assert.equal(detail.statusCode, 301)
    assert.equal(detail.headers.location, '/api/tags/1/')
    assert.equal((await t.get('/api/not_a_thing')).statusCode, 404)
  })
})

describe('formats and timestamps', () => {
  test('format=api renders the browsable page; format=json the data; another format is 404', async () => {
    const html = await t.get('/api/tags/?format=api')
    assert.equal(html.statusCode, 200)
    assert.match(String(html.headers['content-type']), /^text\/html/)
    assert.match(html.body, /<h1>Tag List<\/h1>/)
    assert.match(html.body, /HTTP 200 OK/)
    const json = await t.get('/api/tags/?format=json')
    assert.match(String(json.headers['content-type']), /^application\/json/)
    assert.equal((await t.get('/api/tags/?format=xml')).statusCode, 404)
  })

  test('timestamps are ISO 8601 UTC with fractional seconds and Z', async () => {
    const question = (await t.json('/api/questions/?page_size=1')).results[0]
    for (const value of [question.created_at, question.modified_at, question.user.created_at, question.user.last_answer_time]) {
      assert.match(value, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    }
  })
})

describe('credentials', () => {
  test('reads work anonymously', async () => {
    for (const url of [
      '/api/',
      '/auth/',
      '/api/questions/',
      '/api/tags/',
      '/api/geos/',
      '/api/simple_geos/',
      '/api/users/',
      '/api/user_politician/',
      '/api/question_choices/',
    ]) {
      assert.equal((await t.get(url)).statusCode, 200, url)
    }
  })

  test('a bad token answers 401 with a challenge even on a public resource', async () => {
    const response = await t.get('/api/questions/', { authorization: 'Token 0123456789abcdef' })
    assert.equal(response.statusCode, 401)
    assert.deepEqual(response.json(), { detail: 'Invalid token.' })
    assert.equal(response.headers['www-authenticate'], 'Token')
  })

  test('malformed Authorization headers get DRF messages', async () => {
    assert.deepEqual((await t.get('/api/', { authorization: 'Token' })).json(), {
      detail: 'Invalid token header. No credentials provided.',
    })
    assert.deepEqual((await t.get('/api/', { authorization: 'Token a b' })).json(), {
      detail: 'Invalid token header. Token string should not contain spaces.',
    })
    assert.equal((await t.get('/api/', { authorization: 'Basic dXNlcjpwYXNz' })).statusCode, 200, 'other schemes are not ours to judge')
  })

  test('a valid token works as Token and as Bearer', async () => {
    const token = await t.tokenFor(2)
    assert.equal((await t.get('/api/questions/', { authorization: `Token ${token}` })).statusCode, 200)
    assert.equal((await t.get('/api/questions/', { authorization: `Bearer ${token}` })).statusCode, 200)
  })
})

describe('CORS for configured origins', () => {
  test('a preflight from a configured origin admits Authorization', async () => {
    const cors = await createTestApp('empty', { CORS_ORIGINS: 'https://app.example.org' })
    try {
      const preflight = await cors.request({
        method: 'OPTIONS',
        url: '/api/questions/',
        headers: {
          origin: 'https://app.example.org',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      })
      assert.equal(preflight.statusCode, 204)
      assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example.org')
      assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/)
      const get = await cors.get('/api/questions/', { origin: 'https://app.example.org' })
      assert.equal(get.headers['access-control-allow-origin'], 'https://app.example.org')
      const stranger = await cors.get('/api/questions/', { origin: 'https://evil.example.com' })
      assert.equal(stranger.headers['access-control-allow-origin'], undefined)
    } finally {
      await cors.close()
    }
  })
})
