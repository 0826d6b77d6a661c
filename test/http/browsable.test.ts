import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import type { LightMyRequestResponse } from 'fastify'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { likertQuestion } from '../votes/support.ts'

/** The browsable pages (`?format=api`) as a browser without script sees them: links, forms, sign-in, CSRF. */
let t: TestApp
let key: string
const PASSWORD = 'lantern-orchard-42'

before(async () => {
  t = await createTestApp('tiny')
  key = (await appKeysRepository(t.database.db).create('browsable')).key
  const registered = await t.send('POST', '/auth/register/', { email: 'reader@example.org', username: 'reader', password: PASSWORD })
  assert.equal(registered.statusCode, 201, registered.body)
})
after(async () => t?.close())

const unescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => unescape(m[1]))
/** The value of a hidden input in the page. */
const hiddenValue = (html: string, name: string) => unescape(html.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1] ?? '')

/** Cookies as a browser keeps them: set by answers, sent with the next requests. */
class Jar {
  cookies = new Map<string, string>()
  take(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies as { name: string; value: string; expires?: Date; maxAge?: number }[]) {
      if (cookie.value === '' || (cookie.expires && cookie.expires.getTime() < Date.now()) || cookie.maxAge === 0)
        this.cookies.delete(cookie.name)
      else this.cookies.set(cookie.name, cookie.value)
    }
  }
  header(): string {
    return [...this.cookies].map(([n, v]) => `${n}=${v}`).join('; ')
  }
  async get(url: string): Promise<LightMyRequestResponse> {
    const response = await t.request({ method: 'GET', url, headers: { cookie: this.header() } })
    this.take(response)
    return response
  }
  async post(url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    const response = await t.request({
      method: 'POST',
      url,
      payload: new URLSearchParams(fields).toString(),
      headers: { cookie: this.header(), 'content-type': 'application/x-www-form-urlencoded' },
    })
    this.take(response)
    return response
  }
}

async function signedIn(): Promise<{ jar: Jar; csrf: string }> {
  const jar = new Jar()
  const page = await jar.get('/api/?format=api')
  const csrf = hiddenValue(page.body, 'csrfmiddlewaretoken')
  const login = await jar.post('/api/_browse/login/?format=api', {
    csrfmiddlewaretoken: csrf,
    username: 'reader',
    password: PASSWORD,
    next: '/api/questions/?format=api',
  })
  assert.equal(login.statusCode, 303, login.body)
  return { jar, csrf }
}

describe('links', () => {
  test('every link of this service keeps format=api and the key, & included', async () => {
    const page = await t.get(`/api/questions/?format=api&page_size=2&AppAuthorization=${key}`)
    assert.equal(page.statusCode, 200)
    const own = hrefs(page.body).filter((href) => href.startsWith('/') || href.startsWith('http://localhost'))
    assert.ok(own.length > 5)
    for (const href of own) {
      const url = new URL(href, 'http://localhost')
      assert.equal(url.searchParams.get('format'), 'api', href)
      assert.equal(url.searchParams.get('AppAuthorization'), key, href)
    }
    const next = JSON.parse((await t.get(`/api/questions/?format=json&page_size=2&AppAuthorization=${key}`)).body).next as string
    assert.match(next, /&/, 'the next page has several parameters')
    const linked = hrefs(page.body).find((href) => new URL(href, 'http://localhost').searchParams.get('page') === '2')
    assert.ok(linked, 'the next page is a link')
    assert.equal(new URL(linked).searchParams.get('page_size'), '2')
  })

  test('without a key in the page URL, links carry none', async () => {
    const page = await t.get('/api/questions/?format=api&page_size=2')
    assert.ok(hrefs(page.body).every((href) => !href.includes('AppAuthorization')))
    assert.ok(hrefs(page.body).some((href) => href.includes('page=2') && href.includes('format=api')))
  })
})

describe('safety', () => {
  test('values from the database are shown as text, never markup', async () => {
    const author = await t.database.db.selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow()
    const question = await likertQuestion(t.database.db, author.id, { question: '<script>alert(1)</script> & "quotes"' })
    const page = await t.get(`/api/questions/${question.id}/?format=api`)
    assert.equal(page.statusCode, 200)
    assert.ok(!page.body.includes('<script>alert(1)</script>'))
    assert.ok(!/<script/i.test(page.body), 'no script element at all')
    assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; \\&quot;quotes\\&quot;/)
  })

  test("the Content-Security-Policy forbids script and admits only the page's own style", async () => {
    const page = await t.get('/api/?format=api')
    const policy = String(page.headers['content-security-policy'])
    assert.match(policy, /default-src 'none'/)
    assert.doesNotMatch(policy, /script-src|unsafe-inline/)
    const style = page.body.match(/<style>([\s\S]*?)<\/style>/)![1]
    assert.ok(policy.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`))
    assert.match(page.body, /prefers-color-scheme:dark/)
    assert.match(page.body, /name="viewport"/)
    assert.equal((await t.get('/api/?format=json')).headers['content-security-policy'], undefined)
  })
})

describe('forms', () => {
  test('a listing has a filter form with its filters, ordering and page size; a detail page has none', async () => {
    const page = await t.get('/api/questions/?format=api&search=tax')
    const filters = page.body.match(/<section class="form filters">[\s\S]*?<\/section>/)?.[0] ?? ''
    assert.match(filters, /<form method="get" action="\/api\/questions\/">/)
    assert.match(filters, /name="ordering"/)
    assert.match(filters, /name="search" value="tax"/)
    assert.match(filters, /<select id="f-page_size" name="page_size">/)
    assert.match(filters, /<input type="hidden" name="format" value="api">/)
    const detail = await t.get('/api/tags/1/?format=api')
    assert.doesNotMatch(detail.body, /class="form filters"/)
  })

  test('write forms follow the methods the caller may use, fields from the body schema', async () => {
    const anonymous = await t.get('/api/question_votes/?format=api')
    assert.doesNotMatch(anonymous.body, /class="form method-post"/, 'anonymous callers may not answer')
    const token = (await t.send('POST', '/auth/login/', { username: 'reader', password: PASSWORD })).json().auth_token
    const listing = await t.get('/api/question_votes/?format=api', { authorization: `Token ${token}` })
    const post = listing.body.match(/<section class="form method-post">[\s\S]*?<\/section>/)?.[0] ?? ''
    assert.match(post, /<input type="number" step="1" min="1" max="5"[^>]* name="value"/)
    assert.match(post, /name="object_id" required/)
    assert.match(post, /<select id="f-skipped" name="skipped">/)
    assert.match(post, /name="_content"/, 'a raw JSON form too')
    assert.doesNotMatch(listing.body, /method-put|method-patch|value="DELETE"/)
    assert.match(listing.body, /name="_method" value="OPTIONS"/)
  })
})

describe('forms by owner', () => {
  test("another person's answer offers no edit or delete forms; its owner sees them", async () => {
    const vote = await t.database.db
      .selectFrom('question_votes')
      .select(['id', 'user_id'])
      .where('private', '=', false)
      .orderBy('id')
      .executeTakeFirstOrThrow()
    const reader = await t.database.db.selectFrom('users').select('id').where('username', '=', 'reader').executeTakeFirstOrThrow()
    assert.notEqual(vote.user_id, reader.id)
    const url = `/api/question_votes/${vote.id}/?format=api`
    const stranger = await t.get(url, { authorization: `Token ${await t.tokenFor(reader.id)}` })
    assert.equal(stranger.statusCode, 200)
    assert.doesNotMatch(stranger.body, /class="form method-patch"|name="_method" value="DELETE"/)
    const owner = await t.get(url, { authorization: `Token ${await t.tokenFor(vote.user_id)}` })
    assert.match(owner.body, /class="form method-patch"/)
    assert.match(owner.body, /name="_method" value="DELETE"/)
  })
})

describe('signing in', () => {
  test('sign in with the form, the name shown; the cookie counts on pages only; sign out', async () => {
    const { jar, csrf } = await signedIn()
    const token = jar.cookies.get('browsable_token')
    assert.ok(token)
    const page = await jar.get('/api/questions/?format=api')
    assert.match(page.body, /Signed in as <b>reader<\/b>/)
    assert.match(page.body, /Sign out/)
    // The same cookie on a JSON call, or on a direct write, signs nobody in.
    const me = await t.request({ method: 'GET', url: '/auth/me/', headers: { cookie: jar.header() } })
    assert.equal(me.statusCode, 403)
    assert.deepEqual(me.json(), { detail: 'Authentication credentials were not provided.' })
    const write = await t.request({
      method: 'POST',
      url: '/api/question_votes/?format=api',
      headers: { cookie: jar.header(), 'content-type': 'application/json' },
      payload: '{"object_id": 1, "value": 3}',
    })
    assert.equal(write.statusCode, 403)
    assert.match(write.body, /Authentication credentials were not provided/)

    const out = await jar.post('/api/_browse/logout/?format=api', { csrfmiddlewaretoken: csrf, next: '/api/?format=api' })
    assert.equal(out.statusCode, 303)
    assert.equal(jar.cookies.has('browsable_token'), false)
    assert.equal((await t.get('/auth/me/', { authorization: `Token ${token}` })).statusCode, 401, 'the token is revoked')
    assert.doesNotMatch((await jar.get('/api/?format=api')).body, /Signed in as/)
  })

  test('wrong credentials show the error on the page and set no cookie', async () => {
    const jar = new Jar()
    const csrf = hiddenValue((await jar.get('/api/?format=api')).body, 'csrfmiddlewaretoken')
    const login = await jar.post('/api/_browse/login/?format=api', { csrfmiddlewaretoken: csrf, username: 'reader', password: 'wrong' })
    assert.equal(login.statusCode, 400)
    assert.match(login.body, /Unable to log in with provided credentials/)
    for (const next of ['//evil.example/', '/\t/evil.example/', 'https://evil.example/']) {
      const away = await jar.post('/api/_browse/login/?format=json', {
        csrfmiddlewaretoken: csrf,
        username: 'reader',
        password: PASSWORD,
        next,
      })
      assert.equal(away.statusCode, 400, 'never sent to another site after signing in')
      assert.ok(away.json().next)
    }
    assert.equal(jar.cookies.has('browsable_token'), false)
  })

  test('a form post without the CSRF value, or with another, is refused', async () => {
    const { jar, csrf } = await signedIn()
    for (const value of [undefined, 'f'.repeat(64)]) {
      const fields: Record<string, string> = { username: 'reader', password: PASSWORD }
      if (value) fields.csrfmiddlewaretoken = value
      const login = await jar.post('/api/_browse/login/?format=json', fields)
      assert.equal(login.statusCode, 403)
      assert.deepEqual(login.json(), { detail: 'CSRF Failed: CSRF token missing or incorrect.' })
      const submit = await jar.post('/api/_browse/submit/?format=json', {
        ...(value ? { csrfmiddlewaretoken: value } : {}),
        _method: 'DELETE',
        _url: '/api/question_votes/1/',
      })
      assert.equal(submit.statusCode, 403)
    }
    // A browser without the cookie (another site's form) has no value to match.
    const bare = await t.request({
      method: 'POST',
      url: '/api/_browse/submit/',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `csrfmiddlewaretoken=${csrf}&_url=/api/tags/`,
    })
    assert.equal(bare.statusCode, 403)
  })

  test('answering through the form, editing through the override, then deleting', async () => {
    const { jar, csrf } = await signedIn()
    const author = await t.database.db.selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow()
    const question = await likertQuestion(t.database.db, author.id)
    const answered = await jar.post('/api/_browse/submit/?format=api', {
      csrfmiddlewaretoken: csrf,
      _method: 'POST',
      _url: '/api/question_votes/',
      object_id: String(question.id),
      value: '4',
      importance: '',
    })
    assert.equal(answered.statusCode, 201, answered.body)
    assert.match(answered.body, /HTTP 201 Created/)
    assert.match(answered.body, /Signed in as <b>reader<\/b>/)
    const vote = await t.database.db
      .selectFrom('question_votes')
      .select(['id', 'value'])
      .where('question_id', '=', question.id)
      .executeTakeFirstOrThrow()
    assert.equal(vote.value, 4)

    const patched = await jar.post('/api/_browse/submit/?format=api', {
      csrfmiddlewaretoken: csrf,
      _method: 'PATCH',
      _url: `/api/question_votes/${vote.id}/`,
      _content: '{"value": 2}',
      _content_type: 'application/json',
    })
    assert.equal(patched.statusCode, 200, patched.body)
    const detail = await jar.get(`/api/question_votes/${vote.id}/?format=api`)
    assert.match(detail.body, /class="form method-patch"/)
    assert.match(detail.body, /name="_method" value="DELETE"/)
    const deleted = await jar.post('/api/_browse/submit/?format=api', {
      csrfmiddlewaretoken: csrf,
      _method: 'DELETE',
      _url: `/api/question_votes/${vote.id}/`,
    })
    assert.equal(deleted.statusCode, 200, 'a browser shows nothing for a 204')
    assert.match(deleted.body, /HTTP 204 No Content/)
    const options = await jar.post('/api/_browse/submit/?format=api', {
      csrfmiddlewaretoken: csrf,
      _method: 'OPTIONS',
      _url: '/api/question_votes/',
    })
    assert.equal(options.statusCode, 200)
    assert.match(options.body, /&quot;renders&quot;/)
  })

  test('a form post names a bad method or target as a field', async () => {
    const { jar, csrf } = await signedIn()
    const method = await jar.post('/api/_browse/submit/?format=json', { csrfmiddlewaretoken: csrf, _method: 'TRACE', _url: '/api/tags/' })
    assert.equal(method.statusCode, 400)
    assert.ok(method.json()._method)
    for (const url of ['https://evil.example/', '//evil.example/', '/\t/evil.example/', '/\\evil.example/', '']) {
      const target = await jar.post('/api/_browse/submit/?format=json', { csrfmiddlewaretoken: csrf, _method: 'POST', _url: url })
      assert.equal(target.statusCode, 400)
      assert.ok(target.json()._url)
    }
  })
})
