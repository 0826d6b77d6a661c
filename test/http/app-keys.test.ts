import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { appKeysRepository } from '../../src/modules/app-keys/app-keys.repository.ts'
import { createTestApp, type TestApp } from '../helpers/app.ts'

let open: TestApp
let strict: TestApp

before(async () => {
  open = await createTestApp('empty')
  strict = await createTestApp('empty', { REQUIRE_APP_KEY: 'true' })
})
after(async () => {
  await open.close()
  await strict.close()
})

test('a key is accepted as the AppAuthorization query parameter and header, and its use recorded', async () => {
  const { id, key } = await appKeysRepository(open.database.db).create('web app')
  assert.match(key, /^[0-9a-f]{64}$/)
  assert.equal((await open.get(`/api/?AppAuthorization=${key}`)).statusCode, 200)
  assert.equal((await open.get('/api/', { appauthorization: key })).statusCode, 200)
  // Uses are written together after the answers, within a moment.
  const stored = () => open.database.db.selectFrom('app_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const deadline = Date.now() + 5_000
  while ((await stored()).last_used_at === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  assert.notEqual((await stored()).last_used_at, null)
  assert.notEqual((await stored()).key_hash, key, 'only a hash is stored')
})

test('an unknown key answers 401 with a clear detail', async () => {
  const response = await open.get('/api/questions/?AppAuthorization=not-a-key')
  assert.equal(response.statusCode, 401)
  assert.deepEqual(response.json(), { detail: 'Invalid or revoked application key.' })
})

test('a revoked key answers 401', async () => {
  const keys = appKeysRepository(open.database.db)
  const { id, key } = await keys.create('old app')
  assert.equal(await keys.revoke(id), true)
  assert.equal((await open.get(`/api/?AppAuthorization=${key}`)).statusCode, 401)
  assert.equal(await keys.revoke(id), false, 'revoking twice changes nothing')
})

test('without REQUIRE_APP_KEY a request without a key is served (the original clients send none)', async () => {
  assert.equal((await open.get('/api/tags/')).statusCode, 200)
})

test('with REQUIRE_APP_KEY a request without a key answers 401, with a key 200', async () => {
  const missing = await strict.get('/api/tags/')
  assert.equal(missing.statusCode, 401)
  assert.match(missing.json().detail, /application key is required/)
  const { key } = await appKeysRepository(strict.database.db).create('partner')
  assert.equal((await strict.get(`/api/tags/?AppAuthorization=${key}`)).statusCode, 200)
})
