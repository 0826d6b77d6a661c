import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { Validator } from '@seriousme/openapi-schema-validator'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { parse as parseYaml } from 'yaml'
import { ID_LIST_FORMAT } from '../../src/core/integers.ts'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { inlineRefs } from '../helpers/openapi.ts'

type Operation = {
  summary?: string
  security?: Record<string, string[]>[]
  responses: Record<string, { content?: Record<string, { schema: object }> }>
}
type Document = {
  openapi: string
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes: Record<string, { in: string; name: string }> }
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']
/** Routes outside the document on purpose: health probes and the default avatar (outside the API), the reference page's files. */
const UNDOCUMENTED = new Set(['/healthz', '/readyz', '/static/default-avatar.svg', '/api/docs/static/:file'])

let t: TestApp
/** The document as served, and with its shared components written out where they are used. */
let served: Document
let doc: Document
before(async () => {
  t = await createTestApp('tiny')
  served = await t.json('/api/schema/')
  doc = inlineRefs(served)
})
after(() => t.close())

const openapiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}')

test('/api/schema/ is a valid OpenAPI 3.1 document with the key (query or header) and the token as credentials', async () => {
  assert.equal(doc.openapi, '3.1.0')
  const result = await new Validator().validate(structuredClone(served) as never)
  assert.equal(result.valid, true, JSON.stringify(result.errors)?.slice(0, 2000))
  const schemes = doc.components.securitySchemes
  assert.deepEqual(
    Object.values(schemes)
      .map((scheme) => `${scheme.in}:${scheme.name}`)
      .sort(),
    ['header:AppAuthorization', 'header:Authorization', 'query:AppAuthorization'],
  )
})

test('a shape used by several operations is written once, in components, and referred to', () => {
  const components = (served as unknown as { components: Record<string, Record<string, unknown>> }).components
  assert.ok(Object.keys(components.schemas).length > 20, 'few shared schemas')
  assert.equal((components.responses.Unauthorized as { description: string }).description.length > 8, true)
  // Every reference names a component (inlineRefs throws otherwise), and sharing keeps the document small.
  const compact = JSON.stringify(served).length
  const whole = JSON.stringify(doc).length
  assert.ok(compact * 2 < whole, `${compact} bytes served, ${whole} written out`)
  const twice = new Map<string, number>()
  JSON.stringify(served.paths, (_key, value: unknown) => {
    if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'object' && 'properties' in value) {
      const json = JSON.stringify(value)
      if (json.length >= 150) twice.set(json, (twice.get(json) ?? 0) + 1)
    }
    return value
  })
  assert.deepEqual(
    [...twice.values()].filter((n) => n > 1),
    [],
    'an object schema written out twice',
  )
})

test('every route the service registers is in the document with a summary, and nothing else is', async () => {
  const documented = new Set<string>()
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      documented.add(`${method.toUpperCase()} ${path}`)
      assert.ok(operation.summary && operation.summary.trim().length > 3, `${method} ${path} has no summary`)
      for (const [status, response] of Object.entries(operation.responses)) {
        const description = (response as { description?: string }).description ?? ''
        assert.ok(
          description.length > 8 && !['Default Response', 'OK', 'Created'].includes(description),
          `${method} ${path} ${status} says only "${description}"`,
        )
      }
    }
  }
  const registered = new Set<string>()
  for (const [url, methods] of t.app.accessTable()) {
    if (UNDOCUMENTED.has(url)) continue
    for (const method of methods.keys()) registered.add(`${method} ${openapiPath(url)}`)
  }
  assert.ok(registered.size > 200, `only ${registered.size} routes registered`)
  assert.deepEqual(
    [...registered].filter((route) => !documented.has(route)),
    [],
    'registered but not documented',
  )
  assert.deepEqual(
    [...documented].filter((route) => !registered.has(route)),
    [],
    'documented but not registered',
  )
  for (const prefix of ['/api/', '/auth/', '/auth-yeti/', '/api-push/']) {
    assert.ok(
      [...documented].some((route) => route.split(' ')[1].startsWith(prefix)),
      `nothing under ${prefix}`,
    )
  }
})

test('each operation asks for the credentials its access rule needs', async () => {
  for (const [url, methods] of t.app.accessTable()) {
    if (UNDOCUMENTED.has(url)) continue
    for (const [method, access] of methods) {
      const security = doc.paths[openapiPath(url)][method.toLowerCase()].security!
      const withToken = security.every((alternative) => 'Token' in alternative)
      if (access === 'anyone') {
        assert.ok(
          security.some((alternative) => Object.keys(alternative).length === 0),
          `${method} ${url} is open to anyone`,
        )
      } else {
        assert.ok(withToken, `${method} ${url} (${access}) needs a token in every alternative`)
      }
    }
  }
  // Signed-in only: a token in every alternative, with or without a key.
  assert.deepEqual(doc.paths['/auth/me/'].get.security, [{ Token: [] }, { AppKeyQuery: [], Token: [] }, { AppKeyHeader: [], Token: [] }])
})

test('?format=yaml gives the same document in YAML, ?format=json and no format give JSON, ?format=api the page, others 404', async () => {
  const yaml = await t.get('/api/schema/?format=yaml')
  assert.equal(yaml.statusCode, 200)
  assert.match(yaml.headers['content-type'] as string, /^(application|text)\/yaml/)
  assert.deepEqual(parseYaml(yaml.body), served)

  const json = await t.get('/api/schema/?format=json')
  assert.match(json.headers['content-type'] as string, /^application\/json/)
  assert.deepEqual(json.json(), served)

  const page = await t.get('/api/schema/?format=api')
  assert.equal(page.statusCode, 200)
  assert.match(page.headers['content-type'] as string, /^text\/html/)

  const unknown = await t.get('/api/schema/?format=xml')
  assert.equal(unknown.statusCode, 404)
  assert.deepEqual(unknown.json(), { detail: 'Not found.' })
})

/** Ajv on the documented answer of `method path` for `status`, as a client generated from the document would check. */
function documentedSchema(method: string, path: string, status: number): object {
  const response = doc.paths[path]?.[method]?.responses[String(status)]
  assert.ok(response, `${method} ${path} documents no ${status}`)
  const schema = response.content?.['application/json']?.schema
  assert.ok(schema, `${method} ${path} ${status} documents no JSON body`)
  return schema
}

function ajv() {
  const validator = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(validator)
  validator.addFormat(ID_LIST_FORMAT, true)
  return validator
}

test('real answers of a sample of routes validate against their documented schemas, errors included', async () => {
  const validator = ajv()
  const userId = (await t.json('/api/users/')).results[0].id as number
  const token = await t.tokenFor(userId)
  const signedIn = { authorization: `Token ${token}` }
  const questionId = (await t.json('/api/questions/')).results[0].id as number
  const json = { 'content-type': 'application/json' }

  const sample: { method: string; url: string; path: string; headers?: Record<string, string>; body?: unknown; status: number }[] = [
    { method: 'get', url: '/api/', path: '/api/', status: 200 },
    { method: 'get', url: '/api/questions/?page_size=3', path: '/api/questions/', status: 200 },
    { method: 'get', url: `/api/questions/${questionId}/`, path: '/api/questions/{id}/', status: 200, headers: signedIn },
    { method: 'get', url: '/api/questions/2147483000/', path: '/api/questions/{id}/', status: 404 },
    { method: 'get', url: '/api/questions/?page=999', path: '/api/questions/', status: 404 },
    { method: 'get', url: `/api/users/${userId}/`, path: '/api/users/{id}/', status: 200 },
    { method: 'get', url: '/api/tags/', path: '/api/tags/', status: 200 },
    { method: 'get', url: '/api/comments/?page_size=5', path: '/api/comments/', status: 200 },
    { method: 'get', url: '/api/question_collections/', path: '/api/question_collections/', status: 200 },
    { method: 'get', url: '/api/groups/', path: '/api/groups/', status: 200 },
    { method: 'get', url: '/api/geos/', path: '/api/geos/', status: 200 },
    { method: 'get', url: '/api/census_data/?page_size=5', path: '/api/census_data/', status: 200 },
    { method: 'get', url: `/api/question_stats/${questionId}/`, path: '/api/question_stats/{id}/', status: 200 },
    { method: 'get', url: '/api/general_stats/', path: '/api/general_stats/', status: 200 },
    { method: 'get', url: '/api/question_votes/', path: '/api/question_votes/', status: 200, headers: signedIn },
    { method: 'get', url: '/auth/me/', path: '/auth/me/', status: 200, headers: signedIn },
    { method: 'get', url: '/auth/me/', path: '/auth/me/', status: 403 },
    { method: 'get', url: '/auth/me/', path: '/auth/me/', status: 401, headers: { authorization: 'Token not-a-token' } },
    { method: 'post', url: '/api/question_votes/', path: '/api/question_votes/', status: 400, headers: { ...signedIn, ...json }, body: {} },
    {
      method: 'post',
      url: '/auth/login/',
      path: '/auth/login/',
      status: 400,
      headers: json,
      body: { username: 'nobody-here', password: 'wrong-password-1' },
    },
  ]
  for (const { method, url, path, headers, body, status } of sample) {
    const response = await t.request({
      method: method.toUpperCase() as 'GET',
      url,
      headers,
      payload: body === undefined ? undefined : JSON.stringify(body),
    })
    assert.equal(response.statusCode, status, `${method} ${url}: ${response.body.slice(0, 300)}`)
    assert.match(response.headers['content-type'] as string, /^application\/json/, `${method} ${url}`)
    const validate = validator.compile(documentedSchema(method, path, status))
    assert.ok(
      validate(response.json()),
      `${method} ${url} ${status} does not match its documented schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`,
    )
  }
})

test('every schema in the document compiles as JSON Schema 2020-12, the dialect of OpenAPI 3.1', async () => {
  const validator = ajv()
  const seen = new Set<string>()
  let compiled = 0
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const bodies = Object.values(
        (operation as { requestBody?: { content: Record<string, { schema: object }> } }).requestBody?.content ?? {},
      )
      const answers = Object.values(operation.responses).flatMap((response) => Object.values(response.content ?? {}))
      const parameters = ((operation as { parameters?: { schema: object }[] }).parameters ?? []).map((parameter) => parameter)
      for (const { schema } of [...bodies, ...answers, ...parameters]) {
        // Many operations share a schema (the error bodies, a page of the same items): each text compiles once.
        const text = JSON.stringify(schema)
        if (!seen.has(text)) assert.doesNotThrow(() => validator.compile(schema), `${method} ${path}`)
        seen.add(text)
        compiled++
      }
    }
  }
  assert.ok(compiled > 1000, `${compiled} schemas`)
})

test('every JSON GET without path parameters, and every detail with a row of its list, answers as documented, anonymous and signed in', async () => {
  const validator = ajv()
  const token = await t.tokenFor((await t.json('/api/users/')).results[0].id)
  const callers: Record<string, string>[] = [{}, { authorization: `Token ${token}` }]
  const urls: [string, string][] = []
  for (const path of Object.keys(doc.paths)) {
    if (!doc.paths[path].get || path === '/api/docs/') continue
    if (!path.includes('{')) urls.push([path, path])
    else if (path.endsWith('/{id}/')) {
      const first = (await t.get(path.replace('{id}/', ''), callers[1])).json().results?.[0]?.id
      if (first !== undefined) urls.push([path, path.replace('{id}', String(first))])
    }
  }
  assert.ok(urls.length > 90, `${urls.length} urls`)
  for (const [path, url] of urls) {
    for (const headers of callers) {
      const response = await t.get(url, headers)
      const validate = validator.compile(documentedSchema('get', path, response.statusCode))
      assert.ok(validate(response.json()), `GET ${url} ${response.statusCode}: ${JSON.stringify(validate.errors?.slice(0, 3))}`)
    }
  }
})

test('the documented schemas are not vacuous: a wrong answer fails them', async () => {
  const validator = ajv()
  const question = validator.compile(documentedSchema('get', '/api/questions/{id}/', 200))
  assert.equal(question({ id: 'one' }), false)
  const error = validator.compile(documentedSchema('get', '/api/questions/{id}/', 404))
  assert.equal(error({ message: 'Not found.' }), false)
  assert.equal(error({ detail: 'Not found.' }), true)
})

test('/api/docs/ serves Swagger UI from the service itself, on this document, with no other host', async () => {
  const page = await t.get('/api/docs/')
  assert.equal(page.statusCode, 200)
  assert.match(page.headers['content-type'] as string, /^text\/html/)
  assert.match(page.headers['content-security-policy'] as string, /script-src 'self'(;|$)/)
  assert.doesNotMatch(page.body, /https?:\/\//, 'the page loads nothing from another host')
  assert.doesNotMatch(page.body, /<script>(?!<\/script>)/, 'no inline script')
  const assets = [...page.body.matchAll(/(?:src|href)="(\/api\/docs\/static\/[^"]+)"/g)].map((match) => match[1])
  assert.ok(assets.length >= 5, `assets: ${assets.join(', ')}`)
  for (const asset of assets) {
    const response = await t.get(asset)
    assert.equal(response.statusCode, 200, asset)
    assert.ok(response.rawPayload.length > 100, asset)
  }
  const script = await t.get('/api/docs/static/docs-page.js')
  assert.match(script.body, /\/api\/schema\//)
  assert.equal((await t.get('/api/docs/static/package.json')).statusCode, 404)
  assert.equal((await t.get('/api/docs/static/..%2F..%2Fpackage.json')).statusCode, 404)
  const redirect = await t.get('/api/docs')
  assert.equal(redirect.statusCode, 301)
  assert.equal(redirect.headers.location, '/api/docs/')
})

test('where keys are required, the schema and the page need one, and the page passes it to everything it loads', async () => {
  const keyed = await createTestApp('empty', { REQUIRE_APP_KEY: 'true' })
  try {
    const { key } = await appKeysRepository(keyed.database.db).create('docs')
    assert.equal((await keyed.get('/api/schema/')).statusCode, 401)
    assert.equal((await keyed.get('/api/docs/')).statusCode, 401)
    const document: Document = (await keyed.get('/api/schema/', { appauthorization: key })).json()
    for (const item of Object.values(document.paths)) {
      for (const operation of Object.values(item)) {
        assert.ok(operation.security!.every((alternative) => 'AppKeyQuery' in alternative || 'AppKeyHeader' in alternative))
      }
    }
    const page = await keyed.get(`/api/docs/?AppAuthorization=${key}`)
    assert.equal(page.statusCode, 200)
    const assets = [...page.body.matchAll(/(?:src|href)="(\/api\/docs\/static\/[^"]+)"/g)].map((match) => match[1].replaceAll('&amp;', '&'))
    assert.ok(assets.length >= 5)
    for (const asset of assets) {
      assert.ok(asset.includes(`AppAuthorization=${key}`), asset)
      assert.equal((await keyed.get(asset)).statusCode, 200, asset)
    }
  } finally {
    await keyed.close()
  }
})
