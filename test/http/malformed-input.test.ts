import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Type } from 'typebox'
import type { Database } from '../../src/db/database.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'

/**
 * Malformed input of every kind a client (or a probe) can send answers a DRF-shaped 4xx naming the field or
 * the path, and changes nothing: numbers no column holds, deep JSON, NUL in a path, bytes that are not UTF-8,
 * another charset, a path that cannot be decoded. And an empty filter is no filter, as django-filter reads it.
 */

let t: TestApp
let token: string
let userId: number

const Numbers = Type.Object({
  count: Type.Integer(),
  ratio: Type.Optional(Type.Number()),
  nested: Type.Optional(Type.Object({ ids: Type.Array(Type.Integer()) })),
  either: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  name: Type.Optional(Type.String({ maxLength: 5 })),
})

before(async () => {
  t = await createTestApp('tiny', {}, (app) => {
    // A route whose schema has integers and numbers in every position, to see how the shared reader reads them.
    app.post('/api/test_numbers/', { schema: { body: Numbers }, config: { access: 'anyone' } }, async (request) => request.body)
  })
  const user = await insertUser(t.database.db)
  userId = user.id
  token = await t.tokenFor(user.id)
})
after(() => t.close())

const auth = () => ({ authorization: `Token ${token}` })
const DIGITS_300 = '9'.repeat(300)
const MAX_MESSAGE = 'Ensure this value is less than or equal to 2147483647.'

async function count(table: keyof Database): Promise<number> {
  const row = await t.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Runs the request and checks that the rows of `tables` are as many after as before. */
async function unchanged<T>(tables: (keyof Database)[], run: () => Promise<T>): Promise<T> {
  const before = await Promise.all(tables.map(count))
  const result = await run()
  assert.deepEqual(await Promise.all(tables.map(count)), before, `rows of ${tables.join(', ')} changed`)
  return result
}

describe('numbers in query filters', () => {
  const refused: [string, string][] = [
    ['Infinity', 'Enter a whole number.'],
    ['-Infinity', 'Enter a whole number.'],
    ['NaN', 'Enter a whole number.'],
    ['1e309', 'Enter a whole number.'],
    ['1e400', 'Enter a whole number.'],
    ['0x10', 'Enter a whole number.'],
    ['0b11', 'Enter a whole number.'],
    ['0o7', 'Enter a whole number.'],
    ['1_000', 'Enter a whole number.'],
    ['1.5', 'Enter a whole number.'],
    [DIGITS_300, MAX_MESSAGE],
    ['2147483648', MAX_MESSAGE],
  ]
  for (const [value, message] of refused) {
    test(`?id=${value.slice(0, 20)} answers 400 naming the filter`, async () => {
      const response = await t.get(`/api/users/?id=${encodeURIComponent(value)}`)
      assert.equal(response.statusCode, 400)
      assert.deepEqual(response.json(), { id: [message] })
    })
  }

  test('filters elsewhere: ?tags__tag=1e309 on questions, ?user=1e400 on comment votes', async () => {
    const tags = await t.get('/api/questions/?tags__tag=1e309')
    assert.equal(tags.statusCode, 400)
    assert.deepEqual(tags.json(), { tags__tag: ['Enter a whole number.'] })
    const votes = await t.get('/api/comment_votes/?user=1e400')
    assert.equal(votes.statusCode, 400)
    assert.deepEqual(votes.json(), { user: ['Enter a whole number.'] })
  })

  test('every field at fault is named in one answer', async () => {
    const response = await t.get('/api/comment_votes/?user=0x10&value=40000&object_id=NaN')
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), {
      user: ['Enter a whole number.'],
      object_id: ['Enter a whole number.'],
      value: ['Ensure this value is less than or equal to 32767.'],
    })
  })

  test('a sign and surrounding whitespace are fine, as Django reads them', async () => {
    for (const text of ['%2B1', '%201%20', '01']) {
      const body = await t.json(`/api/users/?id=${text}`)
      assert.deepEqual(
        body.results.map((user: { id: number }) => user.id),
        [1],
        text,
      )
    }
  })
})

describe('empty filters are not applied', () => {
  test('?id__in= and ?id= list what no filter lists (the web app sends them)', async () => {
    const all = await t.json('/api/users/')
    for (const url of ['/api/users/?id__in=', '/api/users/?id=', '/api/users/?id__in=%20', '/api/users/?id=&id__in=']) {
      const body = await t.json(url)
      assert.equal(body.count, all.count, url)
    }
  })

  test('?following__id__in= lists every follow link', async () => {
    const all = await t.json('/api/following_users/')
    assert.ok(all.count > 0, 'the tiny seed has follow links')
    assert.equal((await t.json('/api/following_users/?following__id__in=')).count, all.count)
  })

  test('empty filters of other resources: questions, groups, collections, areas', async () => {
    for (const resource of ['questions', 'groups', 'question_collections', 'geos']) {
      const all = await t.json(`/api/${resource}/`)
      assert.equal((await t.json(`/api/${resource}/?id__in=`)).count, all.count, resource)
    }
    const questions = await t.json('/api/questions/')
    assert.equal((await t.json('/api/questions/?tags__tag=&user=')).count, questions.count)
  })

  test('id lists: whole numbers only; ids no row can have match nothing', async () => {
    assert.deepEqual(
      (await t.json('/api/users/?id__in=1,%202%20,,99999999999')).results.map((user: { id: number }) => user.id).sort(),
      [1, 2],
    )
    for (const list of ['1,x', '0x10', '1,Infinity', '1e3']) {
      const response = await t.get(`/api/users/?id__in=${encodeURIComponent(list)}`)
      assert.equal(response.statusCode, 400, list)
      assert.deepEqual(response.json(), { id__in: ['Enter a whole number.'] }, list)
    }
  })
})

describe('numbers in paths', () => {
  for (const id of ['0x10', '0b11', '0o7', '1_0', 'Infinity', '1e1', DIGITS_300, '2147483648', '0', '-1']) {
    test(`/api/census_data/${id.slice(0, 20)}/ names nothing: 404`, async () => {
      const response = await t.get(`/api/census_data/${id}/`)
      assert.equal(response.statusCode, 404)
      assert.deepEqual(response.json(), { detail: 'Not found.' })
    })
  }

  test('the census id filter reads ids by the same rules: ?id=0x10 names the field, ?id=1 is record 1', async () => {
    for (const id of ['0x10', 'Infinity', '1e3']) {
      const response = await t.get(`/api/census_data/?id=${id}`)
      assert.equal(response.statusCode, 400, id)
      assert.deepEqual(response.json(), { id: ['Enter a whole number.'] }, id)
    }
    const listed = await t.json('/api/census_data/?id=1')
    assert.deepEqual(listed.results, [await t.json('/api/census_data/1/')])
  })

  test('a sign or padding is read as Django reads an id: /api/census_data/+1/ is record 1', async () => {
    const one = await t.json('/api/census_data/1/')
    for (const id of ['%2B1', '%201%20', '001']) assert.deepEqual(await t.json(`/api/census_data/${id}/`), one, id)
  })

  test('POST /api/groups/0x1/join/ joins nothing', async () => {
    const response = await unchanged(['group_memberships', 'group_join_requests'], () =>
      t.request({ method: 'POST', url: '/api/groups/0x1/join/', headers: auth() }),
    )
    assert.equal(response.statusCode, 404)
    assert.deepEqual(response.json(), { detail: 'Not found.' })
  })

  test('a path that cannot be percent-decoded answers DRF 404', async () => {
    for (const url of ['/api/questions/%FF/', '/api/questions/%E0%A4%A/', '/api/users/%C0%AF/']) {
      const response = await t.get(url)
      assert.equal(response.statusCode, 404, url)
      assert.deepEqual(response.json(), { detail: 'Not found.' }, url)
    }
  })

  test('NUL in a path value is refused before any SQL, reading or writing', async () => {
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await unchanged(['push_devices'], () =>
        t.request({
          method,
          url: '/api-push/device/gcm/ab%00cd/',
          headers: { ...auth(), 'content-type': 'application/json' },
          payload: method === 'PATCH' ? '{"name":"x"}' : undefined,
        }),
      )
      assert.equal(response.statusCode, 400, method)
      assert.deepEqual(response.json(), { registration_id: ['Null characters are not allowed.'] }, method)
    }
  })
})

describe('numbers in bodies', () => {
  const commentVote = (text: string) =>
    t.request({ method: 'POST', url: '/api/comment_votes/', headers: { ...auth(), 'content-type': 'application/json' }, payload: text })

  test('{"object_id": 27, "value": "Infinity"} and friends answer 400 naming the field', async () => {
    // value is a choice (5 up, 1 down): DRF's ChoiceField names the value it could not find.
    const cases: [string, Record<string, string[]>][] = [
      ['{"object_id": 27, "value": "Infinity"}', { value: ['"Infinity" is not a valid choice.'] }],
      ['{"object_id": 27, "value": 1e309}', { value: ['"Infinity" is not a valid choice.'] }],
      ['{"object_id": 27, "value": "0x5"}', { value: ['"0x5" is not a valid choice.'] }],
      ['{"object_id": "1e400", "value": 5}', { object_id: ['A valid integer is required.'] }],
      ['{"object_id": 1e400, "value": 5}', { object_id: ['A valid integer is required.'] }],
      [`{"object_id": "${DIGITS_300}", "value": 5}`, { object_id: [MAX_MESSAGE] }],
      ['{"object_id": ["Infinity"], "value": 5}', { object_id: ['A valid integer is required.'] }],
    ]
    for (const [payload, errors] of cases) {
      const response = await unchanged(['comment_votes'], () => commentVote(payload))
      assert.equal(response.statusCode, 400, payload.slice(0, 60))
      assert.deepEqual(response.json(), errors, payload.slice(0, 60))
    }
  })

  const typed = (payload: string, contentType = 'application/json') =>
    t.request({ method: 'POST', url: '/api/test_numbers/', headers: { 'content-type': contentType }, payload })

  test('every integer and number a schema declares, nested, in lists and in unions, is read strictly', async () => {
    const cases: [string, Record<string, string[]>][] = [
      ['{"count": "Infinity"}', { count: ['A valid integer is required.'] }],
      ['{"count": 1e309}', { count: ['A valid integer is required.'] }],
      [`{"count": ${DIGITS_300}}`, { count: [MAX_MESSAGE] }],
      [`{"count": "${DIGITS_300}"}`, { count: [MAX_MESSAGE] }],
      [`{"count": "-${DIGITS_300}"}`, { count: ['Ensure this value is greater than or equal to -2147483648.'] }],
      ['{"count": 2147483648}', { count: [MAX_MESSAGE] }],
      ['{"count": "1_000"}', { count: ['A valid integer is required.'] }],
      ['{"count": 1, "ratio": "nan"}', { ratio: ['A valid number is required.'] }],
      ['{"count": 1, "ratio": "-Infinity"}', { ratio: ['A valid number is required.'] }],
      ['{"count": 1, "ratio": -1e309}', { ratio: ['A valid number is required.'] }],
      ['{"count": 1, "nested": {"ids": [1, "0x2", 3]}}', { 'nested.ids.1': ['A valid integer is required.'] }],
      ['{"count": 1, "either": "Infinity"}', { either: ['A valid integer is required.'] }],
      [
        '{"count": "0b1", "name": "far too long"}',
        { count: ['A valid integer is required.'], name: ['Ensure this field has no more than 5 characters.'] },
      ],
    ]
    for (const [payload, errors] of cases) {
      const response = await typed(payload)
      assert.equal(response.statusCode, 400, payload.slice(0, 60))
      assert.deepEqual(response.json(), errors, payload.slice(0, 60))
    }
    const fine = await typed('{"count": " -12 ", "ratio": "2.5e1", "nested": {"ids": ["+1", 2]}, "either": "7"}')
    assert.equal(fine.statusCode, 200, fine.body)
    assert.deepEqual(fine.json(), { count: -12, ratio: 25, nested: { ids: [1, 2] }, either: 7 })
    const form = await typed('count=Infinity&ratio=1e400', 'application/x-www-form-urlencoded')
    assert.deepEqual(form.json(), { count: ['A valid integer is required.'], ratio: ['A valid number is required.'] })
  })

  test('{"question": "Infinity"} on a question tag answers 400 naming question', async () => {
    const response = await unchanged(['question_tags'], () =>
      t.send('POST', '/api/question_tags/', { question: 'Infinity', tag: 1 }, token),
    )
    assert.equal(response.statusCode, 400)
    assert.deepEqual(response.json(), { question: ['A valid integer is required.'] })
  })

  test('a form field: gender=Infinity (or 0x1) on PATCH /auth/me/ changes nothing', async () => {
    const before = await t.database.db.selectFrom('users').select('gender').where('id', '=', userId).executeTakeFirstOrThrow()
    for (const gender of ['Infinity', '0x1', '1e0', '1_0']) {
      const response = await t.request({
        method: 'PATCH',
        url: '/auth/me/',
        headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: `gender=${gender}`,
      })
      assert.equal(response.statusCode, 400, gender)
      assert.deepEqual(response.json(), { gender: ['A valid integer is required.'] }, gender)
    }
    const row = await t.database.db.selectFrom('users').select('gender').where('id', '=', userId).executeTakeFirstOrThrow()
    assert.deepEqual(row, before)
    const fine = await t.request({
      method: 'PATCH',
      url: '/auth/me/',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'gender=%202%20',
    })
    assert.equal(fine.statusCode, 200, fine.body)
    assert.equal(fine.json().gender, 2)
  })

  test('numbers (not integers): coordinates refuse NaN and Infinity', async () => {
    for (const coordinate of ['"NaN"', '"Infinity"', '"-inf"', '1e309']) {
      const response = await t.request({
        method: 'PATCH',
        url: '/auth/me/',
        headers: { ...auth(), 'content-type': 'application/json' },
        payload: `{"location": {"type": "Point", "coordinates": [${coordinate}, 10]}}`,
      })
      assert.equal(response.statusCode, 400, coordinate)
      assert.deepEqual(response.json(), { 'location.coordinates.0': ['A valid number is required.'] }, coordinate)
    }
  })
})

describe('bodies that cannot be read', () => {
  const echo = (payload: string | Buffer, contentType = 'application/json') =>
    t.request({ method: 'POST', url: '/auth/echo/', headers: { 'content-type': contentType }, payload })

  test('JSON nested 5,000 levels (10 KB) answers 400, as does any past the bound', async () => {
    for (const payload of [
      '['.repeat(5000) + ']'.repeat(5000),
      '{"a":'.repeat(5000) + '1' + '}'.repeat(5000),
      '['.repeat(65) + ']'.repeat(65),
    ]) {
      const response = await echo(payload)
      assert.equal(response.statusCode, 400)
      assert.deepEqual(response.json(), { detail: 'JSON parse error - nested deeper than 64 levels.' })
    }
    const deepOnARoute = await unchanged(['comment_votes'], () =>
      commentVoteRaw('{"object_id":' + '['.repeat(5000) + ']'.repeat(5000) + '}'),
    )
    assert.equal(deepOnARoute.statusCode, 400)
    const fine = '['.repeat(64) + ']'.repeat(64)
    assert.deepEqual((await echo(fine)).json(), JSON.parse(fine))
    // Brackets inside strings are text, not nesting.
    assert.deepEqual((await echo(JSON.stringify({ text: '['.repeat(500) }))).json(), { text: '['.repeat(500) })
  })

  test('invalid UTF-8 in a JSON or form body answers 400 instead of being stored altered', async () => {
    const json = Buffer.concat([Buffer.from('{"first_name": "a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])
    const before = await t.database.db.selectFrom('users').select('first_name').where('id', '=', userId).executeTakeFirstOrThrow()
    const asJson = await t.request({
      method: 'PATCH',
      url: '/auth/me/',
      headers: { ...auth(), 'content-type': 'application/json' },
      payload: json,
    })
    assert.equal(asJson.statusCode, 400)
    assert.deepEqual(asJson.json(), { detail: 'JSON parse error - the body is not valid UTF-8.' })
    for (const payload of [
      Buffer.concat([Buffer.from('first_name=a'), Buffer.from([0xc3])]),
      Buffer.from('first_name=a%FF'),
      Buffer.from('first_name=%C0%AF'),
    ]) {
      const asForm = await t.request({
        method: 'PATCH',
        url: '/auth/me/',
        headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      })
      assert.equal(asForm.statusCode, 400)
      assert.match(asForm.json().detail, /^Form parse error - /)
    }
    assert.deepEqual(
      await t.database.db.selectFrom('users').select('first_name').where('id', '=', userId).executeTakeFirstOrThrow(),
      before,
    )
  })

  test('form fields decode as Django decodes them: UTF-8 escapes, + as space, a stray % kept', async () => {
    const response = await echo('a=%C3%A9t%C3%A9+x&b=100%&b=2&c', 'application/x-www-form-urlencoded')
    assert.deepEqual(response.json(), { a: 'été x', b: ['100%', '2'], c: '' })
    const proto = await echo('__proto__=x', 'application/x-www-form-urlencoded')
    assert.deepEqual(proto.json(), JSON.parse('{"__proto__": "x"}'))
  })

  test('a body declared in another charset answers 415; UTF-8 in any spelling is read', async () => {
    for (const contentType of [
      'application/json; charset=latin1',
      'application/json; charset=ISO-8859-1',
      'application/x-www-form-urlencoded; charset=utf-16',
    ]) {
      const response = await echo('{}', contentType)
      assert.equal(response.statusCode, 415, contentType)
      assert.deepEqual(response.json(), { detail: `Unsupported media type "${contentType}" in request.` })
    }
    for (const contentType of ['application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset="utf8"']) {
      const response = await echo('{"a": "é"}', contentType)
      assert.equal(response.statusCode, 200, contentType)
      assert.deepEqual(response.json(), { a: 'é' })
    }
  })
})

describe('the Host header', () => {
  test('a host no URL can carry answers 400 instead of a broken answer', async () => {
    for (const host of ['exa mple.org', '[::1', 'a/b', 'host:port']) {
      const response = await t.get('/api/users/', { host })
      assert.equal(response.statusCode, 400, host)
      assert.deepEqual(response.json(), { detail: `Invalid Host header "${host}".` })
    }
    for (const host of ['api.example.org', 'localhost:8000', '[::1]:8000', '127.0.0.1', 'civic_survey:8000']) {
      const response = await t.get('/api/users/?page_size=1', { host })
      assert.equal(response.statusCode, 200, host)
      assert.equal(response.json().next, `http://${host}/api/users/?page=2&page_size=1`)
    }
  })
})

function commentVoteRaw(payload: string) {
  return t.request({ method: 'POST', url: '/api/comment_votes/', headers: { ...auth(), 'content-type': 'application/json' }, payload })
}

describe('an id path parameter for owners', () => {
  test('a registration id with NUL is refused even before the owner lookup; a real one still works', async () => {
    const registration = `${randomBytes(16).toString('base64url').slice(0, 22)}:APA91b${randomBytes(90).toString('base64url').slice(0, 90)}`
    const created = await t.send('POST', '/api-push/device/gcm/', { registration_id: registration }, token)
    assert.equal(created.statusCode, 201, created.body)
    assert.equal((await t.get(`/api-push/device/gcm/${registration}/`, auth())).statusCode, 200)
    const withNul = await t.get(`/api-push/device/gcm/${registration}%00/`, auth())
    assert.equal(withNul.statusCode, 400)
  })
})
