import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { createTestApp, type TestApp } from '../helpers/app.ts'
import { owned } from '../helpers/owned/delegations.ts'
import { walkAccess } from '../helpers/access-walk.ts'

let t: TestApp
before(async () => {
  t = await createTestApp('tiny')
})
after(() => t.close())

const DELEGATION_PATHS = /^\/api\/(tag_delegations\/|question_delegation\/|questions\/:id\/representation\/)/

test('every delegation route refuses exactly whom its rule refuses, and never fails', async () => {
  const { failures, cells } = await walkAccess(t, owned, (path) => DELEGATION_PATHS.test(path))
  assert.deepEqual(failures, [])
  assert.equal(cells, 14)
})
