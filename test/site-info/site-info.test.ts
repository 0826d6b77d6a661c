import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('tiny', { RATE_LIMIT_USER: '321', BODY_LIMIT: '2048' })
})
after(() => t.close())

test('general_limits tells the limits in force, from the configuration', async () => {
  const limits = await t.json('/api/general_limits/')
  assert.deepEqual(limits.page_size, { default: 10, maximum: 100 })
  assert.deepEqual(limits.limit_count, { next_question_light: 30, next_question: 100 })
  assert.equal(limits.rate_limits.user, 321)
  assert.equal(limits.body_limit_bytes, 2048)
  assert.deepEqual(Object.keys(limits.rate_limits), [
    'anonymous',
    'user',
    'app_key',
    'ip',
    'sign_in',
    'sign_in_account',
    'sign_up',
    'sensitive',
  ])
  // What it says holds: one more than limit_count's maximum is refused, a body past the limit too.
  assert.equal((await t.get('/api/next_question_light/?limit_count=31')).statusCode, 400)
  const big = await t.request({
    method: 'POST',
    url: '/auth/login/',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ username: 'x'.repeat(4096) }),
  })
  assert.equal(big.statusCode, 413)
})

test('help and licence serve the documents kept in the repository, as JSON and as a browsable page', async () => {
  for (const name of ['help', 'licence']) {
    const document = await t.json(`/api/${name}/`)
    assert.equal(document.content, fs.readFileSync(`docs/${name}.md`, 'utf8'))
    assert.equal(document.title, name === 'help' ? 'Help' : 'Licence')
    const page = await t.get(`/api/${name}/?format=api`)
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-type']), /text\/html/)
  }
  const licence = await t.json('/api/licence/')
  assert.match(licence.content, /Open Database License/)
})

test('the API root lists them, and they refuse writes as DRF does', async () => {
  const root = await t.json('/api/')
  for (const name of ['help', 'licence', 'general_limits']) {
    assert.equal(root[name], `http://localhost:80/api/${name}/`)
    const write = await t.send('POST', `/api/${name}/`, {})
    assert.equal(write.statusCode, 405)
  }
})
