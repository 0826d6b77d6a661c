import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { insertUser } from '../helpers/fixtures.ts'
import { TIMESTAMP } from '../helpers/shapes.ts'

let t: TestApp
let userId: number
let userToken: string
let staffToken: string

const post = (kind: string, body: unknown, token?: string) => t.send('POST', `/api/analytics_event/${kind}/`, body, token)
const counts = (kind: string, query = '', token = staffToken) =>
  t.get(`/api/analytics_event/${kind}/${query}`, token ? { authorization: `Token ${token}` } : {})
const storedCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('analytics_events')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  )

/** What the web app sends when someone shares a question (client call 25). */
const SHARE = {
  analytics_location: '51.5,-0.12,30',
  analytics_browser: 'Mozilla',
  analytics_os: '5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0 Safari/537.36',
  analytics_parent_url: 'https://app.represent.me/survey/12/',
  url: 'https://app.represent.me/question/824/',
  analytics_interface: 'collection',
}

before(async () => {
  t = await createTestApp('empty')
  const user = await insertUser(t.database.db)
  userId = user.id
  userToken = await t.tokenFor(user.id)
  staffToken = await t.tokenFor((await insertUser(t.database.db, { is_staff: true })).id)
})
after(() => t.close())

describe('reporting events', () => {
  test('url_share as the web app sends it, signed in: 201 with the stored event naming the user', async () => {
    const response = await post('url_share', SHARE, userToken)
    assert.equal(response.statusCode, 201, response.body)
    const event = response.json()
    assert.deepEqual(Object.keys(event).sort(), ['created_at', 'id', 'kind', 'payload', 'user'])
    assert.equal(event.kind, 'url_share')
    assert.equal(event.user, userId)
    assert.match(event.created_at, TIMESTAMP)
    assert.deepEqual(event.payload, SHARE)
    const row = await t.database.db.selectFrom('analytics_events').selectAll().where('id', '=', event.id).executeTakeFirstOrThrow()
    assert.equal(row.kind, 'url_share')
    assert.equal(row.user_id, userId)
    assert.deepEqual(row.payload, SHARE)
  })

  test('anonymous, with empty and missing optional fields (stored as null) and unknown fields (ignored)', async () => {
    const response = await post('url_share', { url: 'http://example.org/x', analytics_location: '', analytics_os: null, extra: 'dropped' })
    assert.equal(response.statusCode, 201, response.body)
    assert.equal(response.json().user, null)
    assert.deepEqual(response.json().payload, {
      url: 'http://example.org/x',
      analytics_interface: null,
      analytics_browser: null,
      analytics_os: null,
      analytics_parent_url: null,
      analytics_location: null,
    })
  })

  test('the other kinds, JSON and form-encoded as the chat bot sends', async () => {
    const join = await post('chatbot_join', { platform: 'messenger', chat_id: '1234567890' })
    assert.equal(join.statusCode, 201, join.body)
    assert.deepEqual(join.json().payload, { platform: 'messenger', chat_id: '1234567890' })
    const form = await t.request({
      method: 'POST',
      url: '/api/analytics_event/chatbot_message/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'platform=messenger&chat_id=42&text_length=17',
    })
    assert.equal(form.statusCode, 201, form.body)
    assert.deepEqual(form.json().payload, { platform: 'messenger', chat_id: '42', text_length: 17 })
    const click = await post(
      'clicks',
      { url: 'https://app.represent.me/compare/5/', element: 'compare-button', analytics_interface: 'web' },
      userToken,
    )
    assert.equal(click.statusCode, 201, click.body)
    assert.equal(click.json().payload.element, 'compare-button')
    assert.equal(click.json().payload.analytics_browser, null)
  })

  test('bad input: 400 naming each field, nothing stored', async () => {
    const before = await storedCount()
    const cases: [string, unknown, Record<string, string[]>][] = [
      ['url_share', {}, { url: ['This field is required.'] }],
      ['url_share', { url: 'javascript:alert(1)' }, { url: ['Enter a valid URL.'] }],
      ['url_share', { url: '/question/824/' }, { url: ['Enter a valid URL.'] }],
      ['url_share', { url: 'ftp://example.org/' }, { url: ['Enter a valid URL.'] }],
      ['url_share', { url: '   ' }, { url: ['This field may not be blank.'] }],
      ['url_share', { url: `https://example.org/${'a'.repeat(2000)}` }, { url: ['Ensure this field has no more than 2000 characters.'] }],
      [
        'url_share',
        { url: 'https://example.org/', analytics_parent_url: 'not a url', analytics_location: '91,0' },
        {
          analytics_parent_url: ['Enter a valid URL.'],
          analytics_location: ["Enter 'latitude,longitude' or 'latitude,longitude,accuracy'."],
        },
      ],
      [
        'url_share',
        { url: 'https://example.org/', analytics_location: 'here' },
        { analytics_location: ["Enter 'latitude,longitude' or 'latitude,longitude,accuracy'."] },
      ],
      [
        'url_share',
        { url: 'https://example.org/', analytics_browser: 'x'.repeat(201) },
        { analytics_browser: ['Ensure this field has no more than 200 characters.'] },
      ],
      ['url_share', { url: 'https://example.org/', analytics_os: { name: 'x' } }, { analytics_os: ['Not a valid string.'] }],
      ['url_share', { url: 'https://example.org/a\u0000b' }, { url: ['Null characters are not allowed.'] }],
      ['clicks', { url: 'https://example.org/', element: 'b\ud800' }, { element: ['Enter text without unpaired surrogates.'] }],
      ['chatbot_join', { chat_id: '1' }, { platform: ['This field is required.'] }],
      ['chatbot_join', { platform: '' }, { platform: ['This field may not be blank.'] }],
      ['chatbot_join', { platform: 'p'.repeat(51) }, { platform: ['Ensure this field has no more than 50 characters.'] }],
      ['chatbot_message', { platform: 'sms', text_length: -1 }, { text_length: ['Ensure this value is greater than or equal to 0.'] }],
      ['chatbot_message', { platform: 'sms', text_length: 'long' }, { text_length: ['A valid integer is required.'] }],
      [
        'clicks',
        { url: 'https://example.org/', element: 'e'.repeat(201) },
        { element: ['Ensure this field has no more than 200 characters.'] },
      ],
    ]
    for (const [kind, body, answer] of cases) {
      const response = await post(kind, body)
      assert.equal(response.statusCode, 400, `${kind} ${JSON.stringify(body)}: ${response.body}`)
      assert.deepEqual(response.json(), answer, `${kind} ${JSON.stringify(body)}`)
    }
    const malformed = await t.request({
      method: 'POST',
      url: '/api/analytics_event/clicks/',
      headers: { 'content-type': 'application/json' },
      payload: '{"url": "https://',
    })
    assert.equal(malformed.statusCode, 400)
    assert.ok(malformed.json().detail)
    const array = await post('clicks', ['https://example.org/'])
    assert.equal(array.statusCode, 400)
    const huge = await t.request({
      method: 'POST',
      url: '/api/analytics_event/clicks/',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'https://example.org/', element: 'x'.repeat(5_000_000) }),
    })
    assert.equal(huge.statusCode, 413)
    assert.equal(await storedCount(), before, 'nothing stored')
    assert.equal((await post('url_share', SHARE, 'not-a-token')).statusCode, 401)
  })
})

describe('daily counts', () => {
  before(async () => {
    // Three clicks on 2026-03-01 (one just before midnight UTC), one on 2026-03-03, one url_share on 2026-03-01.
    const at = (iso: string, kind = 'clicks') => ({
      kind,
      payload: JSON.stringify({ url: 'https://example.org/' }),
      created_at: new Date(iso),
    })
    await t.database.db
      .insertInto('analytics_events')
      .values([
        at('2026-03-01T00:00:00Z'),
        at('2026-03-01T12:00:00Z'),
        at('2026-03-01T23:59:59.999Z'),
        at('2026-03-03T00:00:00Z'),
        at('2026-03-01T10:00:00Z', 'url_share'),
      ])
      .execute()
  })

  test('staff read events per day of one kind, oldest first; from and to both included', async () => {
    const march = await counts('clicks', '?from=2026-03-01&to=2026-03-03')
    assert.equal(march.statusCode, 200, march.body)
    assert.deepEqual(march.json(), [
      { date: '2026-03-01', count: 3 },
      { date: '2026-03-03', count: 1 },
    ])
    assert.deepEqual((await counts('clicks', '?from=2026-03-02')).json().slice(0, 1), [{ date: '2026-03-03', count: 1 }])
    assert.deepEqual((await counts('clicks', '?to=2026-03-01')).json(), [{ date: '2026-03-01', count: 3 }])
    assert.deepEqual((await counts('url_share', '?from=2026-03-01&to=2026-03-01')).json(), [{ date: '2026-03-01', count: 1 }])
    assert.deepEqual((await counts('chatbot_join', '?from=2026-03-01&to=2026-03-31')).json(), [])
    const all = (await counts('clicks')).json()
    assert.equal(
      all.reduce((sum: number, day: { count: number }) => sum + day.count, 0),
      5,
      'four inserted and the one reported over HTTP above',
    )
    assert.deepEqual((await counts('clicks', '?from=0001-01-01&to=9999-12-31')).json(), all, 'far bounds bound nothing')
  })

  test('bad dates: 400 naming the field', async () => {
    for (const [query, field] of [
      ['?from=yesterday', 'from'],
      ['?to=2026-02-30', 'to'],
      ['?from=2026-03-05&to=2026-03-01', 'from'],
    ]) {
      const response = await counts('clicks', query)
      assert.equal(response.statusCode, 400, query)
      assert.ok(response.json()[field], `${query}: ${response.body}`)
    }
  })

  test('only staff: others 403', async () => {
    for (const kind of ['url_share', 'chatbot_join', 'chatbot_message', 'clicks']) {
      assert.equal((await counts(kind, '', userToken)).statusCode, 403)
      assert.equal((await counts(kind, '', '')).statusCode, 403)
      assert.equal((await counts(kind)).statusCode, 200)
    }
  })

  test('the API root lists the four names', async () => {
    const root = await t.json('/api/')
    for (const kind of ['url_share', 'chatbot_join', 'chatbot_message', 'clicks']) {
      assert.equal(root[`analytics_event/${kind}`], `http://localhost:80/api/analytics_event/${kind}/`)
    }
  })
})

test('each kind is rate limited per address (a fifth of the anonymous allowance a minute), counted apart', async () => {
  const limited = await createTestApp('empty', { RATE_LIMIT_ANONYMOUS: '10' })
  try {
    const send = (kind: string, body: unknown) => limited.send('POST', `/api/analytics_event/${kind}/`, body)
    assert.equal((await send('clicks', { url: 'https://example.org/' })).statusCode, 201)
    assert.equal((await send('clicks', { url: 'https://example.org/' })).statusCode, 201)
    const third = await send('clicks', { url: 'https://example.org/' })
    assert.equal(third.statusCode, 429)
    assert.match(third.json().detail, /^Request was throttled/)
    assert.ok(third.headers['retry-after'])
    assert.equal((await send('chatbot_join', { platform: 'sms' })).statusCode, 201, 'another kind has its own allowance')
  } finally {
    await limited.close()
  }
})
